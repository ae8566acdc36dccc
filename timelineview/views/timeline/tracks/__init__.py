"""One graphics item per lane kind; ``registry`` says which kind draws which rows."""
