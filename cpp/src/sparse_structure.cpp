#include "nonholo/sparse_structure.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>

namespace nonholo {

namespace {

bool structural_zero(const ExprGraph& g, int output) {
  const Node& node = g.nodes[g.outputs[output]];
  return node.op == Op::Const && node.c == 0.0;
}

// Union-find over the coordinates, with path halving.
class Groups {
 public:
  explicit Groups(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void join(int i, int j) { parent_[find(i)] = find(j); }

 private:
  std::vector<int> parent_;
};

void merge_into(std::vector<int>& target, const std::vector<int>& extra) {
  std::vector<int> merged;
  merged.reserve(target.size() + extra.size());
  std::set_union(target.begin(), target.end(), extra.begin(), extra.end(), std::back_inserter(merged));
  target.swap(merged);
}

}  // namespace

SparseLayout SparseLayout::from_base(const ExprGraph& base, int n, int k, int G_offset, int A_offset, int mu_offset) {
  SparseLayout L;
  L.n = n;
  L.k = k;
  // G's pattern made symmetric (a structural zero whose transpose is not stays, as its value 0)
  L.G_outer.assign(1, 0);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i)
      if (!structural_zero(base, G_offset + i * n + j) || !structural_zero(base, G_offset + j * n + i))
        L.G_inner.push_back(i);
    L.G_outer.push_back(L.nnz_G());
  }
  auto rows = [&](int offset, int n_rows, int n_cols, std::vector<int>& outer, std::vector<int>& inner) {
    outer.assign(1, 0);
    for (int a = 0; a < n_rows; ++a) {
      for (int j = 0; j < n_cols; ++j)
        if (!structural_zero(base, offset + a * n_cols + j)) inner.push_back(j);
      outer.push_back(static_cast<int>(inner.size()));
    }
  };
  rows(A_offset, k, n, L.A_outer, L.A_inner);
  rows(mu_offset, k, k, L.mu_outer, L.mu_inner);
  L.G = 0;
  L.A = L.G + L.nnz_G();
  L.b = L.A + L.nnz_A();
  L.mu = L.b + k;
  L.r = L.mu + L.nnz_mu();
  L.a = L.r + n;
  L.total = L.a + k;
  return L;
}

double SparseLayout::density() const {
  const double dense = static_cast<double>(n) * n + static_cast<double>(k) * n + static_cast<double>(k) * k;
  return (nnz_G() + nnz_A() + nnz_mu()) / dense;
}

std::vector<std::vector<int>> output_input_sets(const ExprGraph& g, int n_tracked) {
  Subgraph live = live_subgraph(g.nodes, g.outputs, g.n_inputs);
  const std::vector<Node>& nodes = live.graph.nodes;
  std::vector<std::vector<int>> sets(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& nd = nodes[i];
    if (nd.op == Op::Input) {
      if (nd.a < n_tracked) sets[i] = {nd.a};
    } else if (nd.op != Op::Const) {
      sets[i] = sets[nd.a];
      if (op_arity(nd.op) == 2) merge_into(sets[i], sets[nd.b]);
    }
  }
  std::vector<std::vector<int>> out(live.graph.outputs.size());
  for (std::size_t j = 0; j < out.size(); ++j) out[j] = sets[live.graph.outputs[j]];
  return out;
}

namespace {

// Coordinates coupled by G, by a shared constraint row, or by mu between two rows.
Groups coupled_groups(const SparseLayout& L) {
  Groups groups(L.n);
  for (int j = 0; j < L.n; ++j)
    for (int e = L.G_outer[j]; e < L.G_outer[j + 1]; ++e) groups.join(L.G_inner[e], j);
  for (int a = 0; a < L.k; ++a)
    for (int e = L.A_outer[a] + 1; e < L.A_outer[a + 1]; ++e) groups.join(L.A_inner[e], L.A_inner[L.A_outer[a]]);
  for (int a = 0; a < L.k; ++a)
    for (int e = L.mu_outer[a]; e < L.mu_outer[a + 1]; ++e) {
      const int b = L.mu_inner[e];
      if (L.A_outer[a + 1] > L.A_outer[a] && L.A_outer[b + 1] > L.A_outer[b])
        groups.join(L.A_inner[L.A_outer[a]], L.A_inner[L.A_outer[b]]);
    }
  return groups;
}

// Greedy colouring: each column takes the smallest colour no column of its groups has.
void color_columns(JacobianStructure& J, int n_states) {
  std::vector<std::vector<int>> groups_of_column(n_states);
  for (int g = 0; g < static_cast<int>(J.group_columns.size()); ++g)
    for (int c : J.group_columns[g]) groups_of_column[c].push_back(g);
  J.color.assign(n_states, -1);
  std::vector<int> stamp;
  for (int c = 0; c < n_states; ++c) {
    if (groups_of_column[c].empty()) continue;  // no acceleration depends on it: any colour
    for (int g : groups_of_column[c])
      for (int other : J.group_columns[g])
        if (J.color[other] >= 0) {
          if (static_cast<int>(stamp.size()) <= J.color[other]) stamp.resize(J.color[other] + 1, -1);
          stamp[J.color[other]] = c;
        }
    int color = 0;
    while (color < static_cast<int>(stamp.size()) && stamp[color] == c) ++color;
    J.color[c] = color;
    J.n_colors = std::max(J.n_colors, color + 1);
  }
  for (int& c : J.color)
    if (c < 0) c = 0;
}

void build_pattern(JacobianStructure& J, const std::vector<std::vector<int>>& members) {
  const int n = J.n, n_states = 2 * n;
  std::vector<std::vector<std::pair<int, signed char>>> columns(n_states);
  for (int c = 0; c < n_states; ++c) {
    columns[c].emplace_back(c, JacobianStructure::kZero);
    if (c >= n) columns[c].emplace_back(c - n, JacobianStructure::kOne);
  }
  for (int g = 0; g < static_cast<int>(members.size()); ++g)
    for (int c : J.group_columns[g])
      for (int i : members[g]) columns[c].emplace_back(n + i, JacobianStructure::kDerivative);
  J.outer.assign(1, 0);
  for (auto& col : columns) {
    // by row; on a tie the derivative wins over the diagonal's filler
    std::sort(col.begin(), col.end(), [](auto& x, auto& y) { return x.first < y.first || (x.first == y.first && x.second > y.second); });
    for (std::size_t e = 0; e < col.size(); ++e) {
      if (e > 0 && col[e].first == col[e - 1].first) continue;
      J.inner.push_back(col[e].first);
      J.source.push_back(col[e].second);
    }
    J.outer.push_back(J.nnz());
  }
}

}  // namespace

JacobianStructure jacobian_structure(const SparseLayout& L, const std::vector<std::vector<int>>& sets,
                                     bool reads_slip) {
  JacobianStructure J;
  J.n = L.n;
  Groups groups = coupled_groups(L);
  std::vector<int> id(L.n, -1);
  int n_groups = 0;
  J.group.resize(L.n);
  for (int i = 0; i < L.n; ++i) {
    const int root = groups.find(i);
    if (id[root] < 0) id[root] = n_groups++;
    J.group[i] = id[root];
  }
  std::vector<std::vector<int>> members(n_groups);
  for (int i = 0; i < L.n; ++i) members[J.group[i]].push_back(i);
  J.group_columns.assign(n_groups, {});
  J.group_of_row.assign(L.k, -1);
  auto add = [&](int g, int output) { merge_into(J.group_columns[g], sets[output]); };
  for (int j = 0; j < L.n; ++j)
    for (int e = L.G_outer[j]; e < L.G_outer[j + 1]; ++e) add(J.group[j], L.G + e);
  for (int i = 0; i < L.n; ++i) add(J.group[i], L.r + i);
  for (int a = 0; a < L.k; ++a) {
    if (L.A_outer[a + 1] == L.A_outer[a]) continue;  // an empty row: the factorization reports it
    const int g = J.group[L.A_inner[L.A_outer[a]]];
    J.group_of_row[a] = g;
    for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) add(g, L.A + e);
    add(g, L.b + a);
    for (int e = L.mu_outer[a]; e < L.mu_outer[a + 1]; ++e) add(g, L.mu + e);
    if (reads_slip) {
      std::vector<int> velocities;
      for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) velocities.push_back(L.n + L.A_inner[e]);
      merge_into(J.group_columns[g], velocities);
    } else {
      add(g, L.a + a);
    }
  }
  color_columns(J, 2 * L.n);
  build_pattern(J, members);
  return J;
}

}  // namespace nonholo
