"""python -m papers [--output DIR] [--only NAME ...]"""

import argparse

from .registry import make_all


def main() -> None:
    parser = argparse.ArgumentParser(description="Regenerate nonholo's figures and REPORT.md")
    parser.add_argument("--output", default="figures", help="output directory (default: figures)")
    parser.add_argument("--only", nargs="*", help="names of figures to make (default: all)")
    args = parser.parse_args()
    print(f"writing figures into {args.output}/")
    make_all(args.output, args.only)


if __name__ == "__main__":
    main()
