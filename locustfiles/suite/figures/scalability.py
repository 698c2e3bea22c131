"""The Universal Scalability Law fitted to a capacity run's steps, and the peak it predicts.

    X(N) = λN / (1 + σ(N − 1) + κN(N − 1))

Gunther's model: λ is the throughput of one request in flight alone, σ the share of the work
that serialises (contention: a queue, a lock), κ the cost of keeping the parallel work coherent
(crosstalk: every request in flight slowing every other). With κ > 0 throughput peaks at
N* = sqrt((1 − σ) / κ) and falls past it (the retrograde region); with κ = 0 it only levels
off towards λ / σ.

A step's point, for the order endpoint the step table and capacity_rpm are about (the free
purchase through the LMS):

* N: the mean number of order requests in flight, by Little's law: the requests that started
  per second times their mean response time in seconds. The open model sets the arrival rate,
  not N: N is what the service's response times made of it.
* X: the order requests answered 2xx per minute, the purchases the step completed.

The fit is least squares on X (numpy, no scipy): a start from the linearised model,
N/X = 1/λ + (σ/λ)(N − 1) + (κ/λ)N(N − 1), a regression weighted so its residuals weigh as
those of X, then Levenberg-Marquardt on X itself. σ is kept in [0, 1] and κ at 0 or more by
fitting every combination of free and bound parameters; of those, the one Akaike's criterion
prefers (a parameter set free must lower the squared error by more than chance would).
"""

import math
from collections.abc import Sequence
from itertools import product
from typing import Any

import numpy as np

from locustfiles.suite.core.blocks import fmt
from locustfiles.suite.core.names import SUCCESS_FOR_AUDIT
from locustfiles.suite.core.summary import StepRow

MIN_POINTS = 3  # three parameters
BOUNDS = {"sigma": (0.0, 1.0), "kappa": (0.0, math.inf)}
MODEL = "X(N) = λN / (1 + σ(N − 1) + κN(N − 1))"
CONCURRENCY = (
    "mean order requests in flight (Little's law: order requests per second × their mean response time)"
)
THROUGHPUT = "order requests answered 2xx per minute (free purchases completed)"


def usl(n, lam: float, sigma: float, kappa: float):
    """X at concurrency ``n`` (a number or a numpy array)."""
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def peak(lam: float, sigma: float, kappa: float) -> tuple[float | None, float | None]:
    """(N*, X(N*)): the concurrency of the highest throughput and that throughput; (None, None)
    when the model predicts none (κ = 0: no retrograde region; σ = 1: no growth at all)."""
    if kappa <= 0 or sigma >= 1:
        return None, None
    n_star = math.sqrt((1 - sigma) / kappa)
    return n_star, float(usl(n_star, lam, sigma, kappa))


# --- the fit --------------------------------------------------------------------------------


class Degenerate(ValueError):
    """The points cannot determine the model's parameters."""


def fit(n_values, x_values) -> dict:
    """λ, σ, κ fitted to points (N, X) by least squares on X, within σ in [0, 1] and κ >= 0;
    with "sse" (the sum of squared residuals of X) and "free" (the parameters not at a bound).
    Degenerate when fewer than three distinct concurrencies are given."""
    n = np.asarray(n_values, dtype=float)
    x = np.asarray(x_values, dtype=float)
    if n.shape != x.shape or np.any(n <= 0) or np.any(x <= 0):
        raise Degenerate("every point needs a concurrency and a throughput above 0")
    if len(np.unique(np.round(n, 6))) < MIN_POINTS:
        raise Degenerate(f"fewer than {MIN_POINTS} distinct concurrencies")
    # Each of σ and κ either free or held at one of its bounds. A parameter is freed only when
    # it pays for itself by Akaike's criterion (n·ln(SSE/n) + 2k): points on a bound, an Amdahl
    # curve say, keep κ at exactly 0 rather than at the 1e-5 a measurement's rounding buys.
    floor = 1e-12 * float(x @ x)  # an exact fit is as good as any other exact fit

    def score(found: dict) -> float:
        return len(x) * math.log(max(found["sse"], floor) / len(x)) + 2 * (1 + len(found["free"]))

    best = None
    for sigma_at, kappa_at in product((None, *BOUNDS["sigma"]), (None, BOUNDS["kappa"][0])):
        found = _fit_with(n, x, sigma_at, kappa_at)
        if found is not None and (best is None or score(found) < score(best)):
            best = found
    if best is None:
        raise Degenerate("no fit with λ > 0 inside the bounds")
    return best


def _fit_with(n, x, sigma_at: float | None, kappa_at: float | None) -> dict | None:
    """The best fit with σ and/or κ held at the given value (None: free), or None."""
    start = _linearised(n, x, sigma_at, kappa_at)
    if start is None:
        return None
    free = [name for name, held in (("sigma", sigma_at), ("kappa", kappa_at)) if held is None]
    params = _refine(n, x, start, free)
    if params is None:
        return None
    residuals = x - usl(n, params["lam"], params["sigma"], params["kappa"])
    return {**{k: float(v) for k, v in params.items()}, "sse": float(residuals @ residuals), "free": free}


def _linearised(n, x, sigma_at, kappa_at) -> dict | None:
    """A start: weighted least squares on N/X = a·(1 + σ₀(N − 1) + κ₀N(N − 1)) + b(N − 1) +
    c·N(N − 1), with a = 1/λ, b = σ/λ, c = κ/λ for the free ones (σ₀, κ₀ the held values, 0 for
    a free one). Free values outside their bounds are brought inside; None if λ would not be
    positive or the columns are not independent."""
    y = n / x
    base = 1 + (sigma_at or 0.0) * (n - 1) + (kappa_at or 0.0) * n * (n - 1)
    columns = [base]
    if sigma_at is None:
        columns.append(n - 1)
    if kappa_at is None:
        columns.append(n * (n - 1))
    design = np.column_stack(columns)
    # N/X's error dy moves X by about X²/N · dy: weigh each row so both errors count alike.
    weight = x**2 / n
    weight = weight / weight.max()
    solution, _, rank, _ = np.linalg.lstsq(design * weight[:, None], y * weight, rcond=None)
    if rank < len(columns) or solution[0] <= 0:
        return None
    a, rest = solution[0], list(solution[1:])
    sigma = rest.pop(0) / a if sigma_at is None else sigma_at
    kappa = rest.pop(0) / a if kappa_at is None else kappa_at
    sigma = min(max(sigma, 0.0), 1.0)
    kappa = max(kappa, 0.0)
    return {"lam": 1 / a, "sigma": sigma, "kappa": kappa}


def _refine(n, x, start: dict, free: list[str], iterations: int = 500) -> dict | None:
    """Levenberg-Marquardt on X's residuals for λ and the free parameters, never leaving the
    bounds (a step that would is refused and damped)."""
    names = ["lam", *free]
    params = dict(start)

    def sse_of(p: dict) -> float:
        r = x - usl(n, p["lam"], p["sigma"], p["kappa"])
        return float(r @ r)

    def inside(p: dict) -> bool:
        denominator = 1 + p["sigma"] * (n - 1) + p["kappa"] * n * (n - 1)
        return (
            p["lam"] > 0
            and BOUNDS["sigma"][0] <= p["sigma"] <= BOUNDS["sigma"][1]
            and p["kappa"] >= BOUNDS["kappa"][0]
            and bool(np.all(denominator > 0))
        )

    if not inside(params):
        return None
    sse, damping = sse_of(params), 1e-3
    for _ in range(iterations):
        lam, sigma, kappa = params["lam"], params["sigma"], params["kappa"]
        denominator = 1 + sigma * (n - 1) + kappa * n * (n - 1)
        model = lam * n / denominator
        slopes = {
            "lam": n / denominator,
            "sigma": -model * (n - 1) / denominator,
            "kappa": -model * n * (n - 1) / denominator,
        }
        jacobian = np.column_stack([slopes[name] for name in names])
        normal = jacobian.T @ jacobian
        gradient = jacobian.T @ (x - model)
        improved = False
        while damping < 1e12:
            try:
                step = np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-30), gradient)
            except np.linalg.LinAlgError:
                damping *= 10
                continue
            trial = {**params, **{name: params[name] + s for name, s in zip(names, step, strict=True)}}
            if inside(trial) and (trial_sse := sse_of(trial)) <= sse:
                converged = sse - trial_sse <= 1e-12 * max(sse, 1e-300)
                params, sse, damping, improved = trial, trial_sse, max(damping / 3, 1e-12), True
                break
            damping *= 4
        if not improved or converged:
            break
    return params


# --- the run's figures ------------------------------------------------------------------------


def point(row: StepRow) -> dict | None:
    """A step's (N, X), or None for a step without a completed purchase or a timed request."""
    seconds, rps, mean = row.get("seconds"), row.get("rps"), row.get("mean")
    statuses = row.get("statuses") or {}
    answered = sum(int(statuses.get(str(status), 0)) for status in SUCCESS_FOR_AUDIT)
    if not seconds or not rps or mean is None or not answered:
        return None
    return {
        "label": row.get("label"),
        "target_rpm": row.get("target_rpm"),
        "n": round(rps * mean / 1000, 3),
        "x_rpm": round(answered * 60 / seconds, 1),
    }


def words(found: dict) -> str:
    """The prediction beside the measured capacity, in one line (the report's, the terminal's)."""

    measured = found.get("measured_capacity_rpm")
    beside = f"; measured capacity {fmt(measured)} RPM" if measured is not None else "; no step held"
    if not found.get("fitted"):
        return f"USL not fitted ({found.get('not_fitted')}){beside}"
    params = f"λ {fmt(found['lambda_rpm'])} RPM, σ {fmt(found['sigma'])}, κ {fmt(found['kappa'])}"
    if found.get("peak_rpm") is None:
        return f"USL ({params}): no peak predicted within the model{beside}"
    return (
        f"USL ({params}): predicted peak {fmt(found['peak_rpm'])} RPM at N* = {fmt(found['n_star'])} "
        f"purchases in flight{beside}"
    )


def _significant(value: float, digits: int = 4) -> float:
    return float(f"{value:.{digits}g}")


def _not_fitted(found: dict, reason: str) -> dict:
    found["not_fitted"] = reason
    found["caveats"].append(f"Not fitted: {reason}.")
    return found


def analyse(rows: Sequence[StepRow], capacity_rpm: float | None) -> dict[str, Any]:
    """summary.json's "scalability": the points, the fitted parameters, the predicted peak next
    to the measured capacity, and what the reader should know before trusting it."""
    points = [p for p in (point(row) for row in rows) if p and p["n"] > 0]
    found: dict[str, Any] = {
        "model": MODEL,
        "concurrency": CONCURRENCY,
        "throughput": THROUGHPUT,
        "points": points,
        "measured_capacity_rpm": capacity_rpm,
        "fitted": False,
        "caveats": [],
    }
    if len(points) < MIN_POINTS:
        return _not_fitted(
            found,
            f"{len(points)} step{'s' if len(points) != 1 else ''} completed purchases, and the "
            f"model's three parameters need at least {MIN_POINTS}",
        )
    n = [p["n"] for p in points]
    x = [p["x_rpm"] for p in points]
    try:
        fitted = fit(n, x)
    except Degenerate as exc:
        return _not_fitted(found, str(exc))
    lam, sigma, kappa = fitted["lam"], fitted["sigma"], fitted["kappa"]
    n_star, peak_rpm = peak(lam, sigma, kappa)
    predicted = usl(np.asarray(n), lam, sigma, kappa)
    spread = float(np.sum((np.asarray(x) - np.mean(x)) ** 2))
    found.update(
        {
            "fitted": True,
            # λ, and σ and κ unless the fit held them on a bound (σ = 0 or 1, κ = 0)
            "parameters_fitted": 1 + len(fitted["free"]),
            "lambda_rpm": round(lam, 1),
            "sigma": _significant(sigma),
            "kappa": _significant(kappa),
            "n_star": round(n_star, 2) if n_star is not None else None,
            "peak_rpm": round(peak_rpm, 1) if peak_rpm is not None else None,
            "ceiling_rpm": round(lam / sigma, 1) if kappa == 0 and sigma > 0 else None,
            "r_squared": round(1 - fitted["sse"] / spread, 4) if spread else None,
            "rmse_rpm": round(math.sqrt(fitted["sse"] / len(points)), 1),
            "fitted_rpm": [round(float(v), 1) for v in predicted],
        }
    )
    found["caveats"].extend(_caveats(found, kappa, n_star, max(n), len(points)))
    return found


def _caveats(found: dict, kappa: float, n_star: float | None, highest: float, points: int) -> list[str]:
    """What the reader should know before trusting a fit: where its peak lies, if anywhere, and
    how many steps were left over to check it."""
    caveats: list[str] = []
    if kappa == 0:
        caveats.append(
            "No peak predicted within the model: the fit found no coherency cost (κ = 0), so "
            "throughput does not turn down as concurrency grows"
            + (
                f"; it levels off towards λ/σ = {found['ceiling_rpm']:g} RPM."
                if found["ceiling_rpm"] is not None
                else " and the steps show no contention either (σ = 0): they stayed below the knee."
            )
        )
    elif n_star is None:
        caveats.append(
            "No peak predicted within the model: σ = 1, throughput does not grow with concurrency."
        )
    elif n_star > highest:
        caveats.append(
            f"The peak is an extrapolation: N* = {found['n_star']:g} lies beyond the highest concurrency "
            f"measured ({highest:g})."
        )
    spare = points - found["parameters_fitted"]
    if spare == 0:
        caveats.append(
            f"Only {points} steps for {points} fitted parameters: the curve passes through "
            "them, so nothing checks the model; more steps make it a test."
        )
    elif spare == 1:
        caveats.append(
            f"Only {points} steps for {found['parameters_fitted']} fitted parameters: one step's "
            "worth checks the model; more steps make it a test."
        )
    return caveats
