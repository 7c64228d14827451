"""``python -m musa_porting`` is the same as ``musa-port``."""

from .cli import main

if __name__ == "__main__":
    main()
