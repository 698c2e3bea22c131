"""The findings' shared words: a finding, milliseconds, a threshold metric's value with its unit."""


def finding(level: str, text: str) -> dict:
    return {"level": level, "text": text}


def ms(value) -> str:
    return f"{value:g} ms"


def metric_value(metric: str, value) -> str:
    """A threshold metric's value with its unit: percentiles and the mean are milliseconds."""
    if value is None:
        return "not measured"
    return ms(value) if metric == "mean" or metric.startswith("p") else f"{value:g}"
