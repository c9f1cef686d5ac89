"""Reading the example scripts' printed output."""


def losses(lines, prefix):
    """The numbers after ``prefix`` in the printed lines."""
    return [
        float(line.rsplit(prefix, 1)[1].split()[0].rstrip(",")) for line in lines if prefix in line
    ]
