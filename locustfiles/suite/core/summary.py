"""summary.json as types: the contract CI systems, `make compare` and the reports read.

One TypedDict per object the run writes (run/summary.py and the profiles' hooks);
docs/summary.schema.json is generated from these (core/json_schema.py, written by
``python -m locustfiles.suite.tools.summary_schema``). Keys are only ever added: a new key is
typed here first, SCHEMA_VERSION goes up, and the schema is written again. The objects in
CLOSED list every key they may hold (the schema refuses others); the rest name the keys their
readers rely on and may carry more (a step's server readings, a profile's figures).

A number is ``float`` (JSON's number: an integer is one too); ``Any`` is any JSON value.
"""

from typing import Any, Final, Literal, NotRequired, TypedDict

from common.calibration import Sitting

# 1: the keys summary.json had when the schema was first published (issue 30), plus this one.
# 2: capacity's ceiling (a step's ceiling_rpm, the summary's ceiling) and a step's
#    worker_cpu_percent (issue 29).
# 3: capacity's search for the knee (capacity_search; a step's judged, and held None for a
#    step that judged nothing) (issue 29).
# 4: an open-model row's from_schedule, the order endpoint's latency from its arrivals' due
#    times (issue 31).
# 5: a step's worker_requests, each worker's requests beside its CPU, and the ceiling of the
#    step that broke above capacity with capacity's share of it (issue 29).
# 6: shed_by_machine, the shed requests beside how busy the machine was in their second, and
#    the timeline's shed and machine_cpu_percent per point (issue 29).
# 7: settings, the run's settings as given and as resolved (issue 43).
# 8: nothing written twice; the verdict's failures, each with its kind, and where its
#    thresholds were judged (thresholds_at) (issue 46).
# 9: calibration (the machine's, at the start and end) and cpu_cal_per_purchase (issue 45).
SCHEMA_VERSION = 9

# What a run failed for (a Failure's kind): readers decide by these, never by a failure's words.
THRESHOLDS: Final = "thresholds"  # thresholds broken; about: their scope (None: thresholds_at's)
AUDIT: Final = "audit"  # the "nothing lost" audit failed, or could not run
FAULT: Final = "fault"  # chaos: a fault's step broke its checks; about: the fault
RETRY: Final = "retry"  # chaos: orders left incomplete after retry_fulfillment --all
CAPACITY: Final = "capacity"  # capacity: no step held the thresholds
CLIENT: Final = "client"  # edX's 2015 client: failed requests, task exceptions, no purchase
PROFILING: Final = "profiling"  # make profile: no profile was taken
OVERLOAD: Final = "overload"  # overload: orders committed for purchases it refused
FailureKind = Literal["thresholds", "audit", "fault", "retry", "capacity", "client", "profiling", "overload"]

# Where the verdict's thresholds were judged: on the whole run, or (capacity) on the step that
# broke above capacity, where a broken threshold is what the run measures, not a failure.
THRESHOLDS_AT_RUN: Final = "run"
THRESHOLDS_AT_BROKE_STEP: Final = "broke_step"
ThresholdsAt = Literal["run", "broke_step"]


class Row(TypedDict):
    """One endpoint's requests over a step, or over the run (figures/results.py's _row)."""

    requests: int
    failures: int
    errors: float | None
    rps: float | None
    rpm: float | None
    arrivals: int
    missed: int
    missed_rate: float
    mean: float | None
    p50: float | None
    p66: float | None
    p75: float | None
    p80: float | None
    p90: float | None
    p95: float | None
    p98: float | None
    p99: float | None
    p100: float | None
    thin: list[str]  # the percentile keys too few samples support
    statuses: dict[str, int]
    refusals: dict[str, int]
    shed: int
    unshed_failures: int
    accepted: dict[str, float | None]  # the 2xx answers' percentiles
    server_timing: dict[str, Any]


class FromSchedule(TypedDict):
    """Open model: the order endpoint's latency measured from its arrival's due time (moved on
    by the time the journey's earlier requests took: the learner's login), not from when it
    was sent, over the arrivals due in the row's steps (record/recorder.py)."""

    p50: float | None
    p95: float | None
    p99: float | None
    samples: int


class OverallRow(Row):
    """The order endpoint over the measured steps, with every endpoint beside it."""

    label: str
    endpoints: dict[str, Row]
    unshed: float | None
    from_schedule: NotRequired[FromSchedule]  # open-model runs only


class StepRow(OverallRow):
    """One step (or soak bucket): the plan's step, its requests, and the servers' reading at
    its end (record/sampler.py; absent when the step's reading was not taken)."""

    index: int
    start: float
    users: int | None
    target_rpm: float | None
    fault: str | None
    seconds: float
    degraded_from: NotRequired[int]
    degraded_until: NotRequired[int]
    held: NotRequired[bool | None]  # capacity: the step kept the thresholds (None: not judged)
    judged: NotRequired[bool]  # False: load held or cut short by capacity's search, judging nothing
    ceiling_rpm: NotRequired[float | None]  # capacity: figures/ceiling.py
    reading_seconds: NotRequired[float]
    cpu_percent: NotRequired[dict[str, Any]]
    cpu_ms: NotRequired[dict[str, Any]]
    cpu_ms_per_purchase: NotRequired[dict[str, float | None]]
    purchases: NotRequired[int]
    purchases_by_kind: NotRequired[dict[str, int]]
    machine_cores: NotRequired[int]
    machine_cpu_percent: NotRequired[float | None]
    other_cpu_percent: NotRequired[float | None]
    kernels: NotRequired[int]
    rss_mb: NotRequired[dict[str, Any]]
    processes_replaced: NotRequired[dict[str, Any]]
    worker_cpu_percent: NotRequired[dict[str, list[float]]]  # each worker's, busiest first
    worker_requests: NotRequired[dict[str, list[int | None]]]  # in worker_cpu_percent's order
    hosts: NotRequired[dict[str, Any]]
    db: NotRequired[dict[str, Any]]
    db_deltas: NotRequired[dict[str, Any]]
    db_levels: NotRequired[dict[str, Any]]
    db_size_mb: NotRequired[float | None]
    tables: NotRequired[dict[str, Any]]
    suite_rss_mb: NotRequired[float]
    locust_cpu: NotRequired[dict[str, float]]
    locust_cpu_by_host: NotRequired[dict[str, float]]
    balancer: NotRequired[dict[str, Any]]


class PlanSummary(TypedDict):
    """core/plan.py's Plan.as_dict, but its profile (the summary's own "profile")."""

    steps: list[dict[str, Any]]
    open_model: bool
    users: int
    seconds: float | None


class EndpointsOfStep(TypedDict):
    index: int
    label: str
    endpoints: dict[str, Row]


class Endpoints(TypedDict):
    steps: list[EndpointsOfStep]
    overall: dict[str, Row]


class Timeline(TypedDict):
    bucket_seconds: float
    points: list[dict[str, Any]]
    step_starts: list[float]
    step_labels: list[str]


class Load(TypedDict):
    host: str | None
    users: int | None
    spawn_rate: float | None
    locust_workers: int
    locust_hosts: dict[str, str]
    locust_workers_expected: int | None


class LoadGenerator(TypedDict):
    """The busiest Locust process, and whether it neared a full core."""

    peak_cpu_percent: float | None
    process: str | None
    saturated: bool
    threshold_percent: float


class CpuAccounting(TypedDict):
    cpu_ms: dict[str, Any]
    cpu_ms_per_purchase: dict[str, float | None]
    mix: dict[str, Any]
    purchases: int
    seconds: float


class Audit(TypedDict):
    """verdict/audit.py's "nothing lost" audit; an audit that could not run says why (error)."""

    passed: bool
    successes: int
    error: NotRequired[str]
    orders: NotRequired[int]
    enrollments: NotRequired[int]
    lost: NotRequired[int]
    duplicates: NotRequired[int]
    partial: NotRequired[int]
    unanswered: NotRequired[int]
    enrollments_missing: NotRequired[int]
    answered_numbers: NotRequired[int]
    lost_examples: NotRequired[list[Any]]
    orders_by_status: NotRequired[dict[str, int]]
    statuses: NotRequired[dict[str, str]]
    payments: NotRequired[dict[str, Any]]


class Db(TypedDict):
    """MariaDB's counters over the whole run, warm-up included (as the audit)."""

    commits: int
    row_lock_waits: int
    connections_opened: int
    slow_queries: int


class Sql(TypedDict):
    slow_query_seconds: float | None
    top: NotRequired[list[dict[str, Any]]]
    no_index: NotRequired[list[dict[str, Any]]]
    background: NotRequired[list[dict[str, Any]]]


class Failure(TypedDict):
    """One cause the run failed for: its kind, what it is about (a chaos fault's name, a
    threshold's scope; None when the kind says it all) and the words the reports show."""

    kind: FailureKind
    about: str | None
    text: str


class Verdict(TypedDict):
    """The profile's threshold checks, judged where thresholds_at says, and every failure."""

    thresholds: list[dict[str, Any]]
    thresholds_at: ThresholdsAt
    passed: bool
    failures: list[Failure]


class Finding(TypedDict):
    level: str
    text: str


class RetryFulfillment(TypedDict):
    """chaos: retry_fulfillment --all after the load, as an operator would run it."""

    exit_code: int
    summary: str


class Profiling(TypedDict):
    """make profile's py-spy recordings."""

    taken: bool
    reason: str | None
    groups: dict[str, Any]
    tool: NotRequired[str]
    rate_hz: NotRequired[float]
    seconds: NotRequired[float]


class BrokenStep(TypedDict):
    """What the step after capacity broke on (figures/ceiling.py)."""

    step: str
    target_rpm: float | None
    errors: float | None
    refused: dict[str, int]
    p95: float | None
    machine_cpu_percent: float | None
    ceiling_rpm: NotRequired[float | None]  # its own ceiling (issue 29)
    ratio: NotRequired[float | None]  # capacity ÷ that


class Ceiling(TypedDict):
    """Capacity beside the machine's ceiling at the step that set it (figures/ceiling.py)."""

    step: str
    ceiling_rpm: float
    ratio: float
    machine_cpu_percent: float
    cores: int
    next_step: BrokenStep | None


class CapacitySearch(TypedDict):
    """Capacity's search for the knee (core/knee.py): the highest rate that held below the
    lowest that broke, and how narrow that interval came."""

    interval_rpm: list[float] | None  # [held, broke]; None when no step broke or none held
    interval_pct: float | None  # (broke - held) / held x 100
    probes: int  # steps run between the two after the climb broke
    broke_step: int | None  # the index of the step that broke at the interval's top


class ShedByMachine(TypedDict):
    """The shed requests beside how busy the machine's cores were in the second each was sent
    (figures/shed_seconds.py): refused with CPU to spare, or while the machine was full."""

    resolution_seconds: float  # the timeline's bucket: the seconds each judgement spans
    cores: int
    spare_pct: float  # "to spare": more than this share of the machine idle
    busy_limit_cpu_percent: float  # the same as machine_cpu_percent (% of one core)
    shed: int
    unmeasured: int  # shed in seconds whose machine was not read
    with_cpu_to_spare: int
    seconds_with_cpu_to_spare: int
    first_with_cpu_to_spare: dict[str, float] | None  # t (offset, s), shed, machine_cpu_percent
    least_busy_cpu_percent: float | None  # of the seconds with a shed request


class Settings(TypedDict):
    """The run's settings (core/settings.py): the texts given, and every value the run used."""

    given: dict[str, str]
    resolved: dict[str, Any]


class Summary(TypedDict):
    """summary.json. The profile-specific keys are NotRequired: capacity writes capacity_rpm,
    capacity_steps_held, capacity_search, ceiling and scalability; soak trend; overload
    overload; chaos retry_fulfillment and reliability; edx2015 client; profile profiling; a
    run behind HAProxy balancer."""

    schema_version: int
    profile: str
    started_from: str
    t0: float
    started: str
    finished: str
    seconds: float
    config: dict[str, Any]
    plan: PlanSummary
    warm_up: StepRow | None
    steps: list[StepRow]
    overall: OverallRow
    endpoints: Endpoints
    timeline: Timeline
    outside_plan_requests: dict[str, int]
    error_examples: dict[str, list[str]]
    load: Load
    load_generator: LoadGenerator
    profile_sections: list[str]
    cpu_accounting: CpuAccounting
    cpu_ms_per_purchase: dict[str, float | None]
    calibration: NotRequired[Sitting]  # common/calibration: before the load and after it
    cpu_cal_per_purchase: NotRequired[dict[str, float | None]]  # CPU ms over its ms: "cal"
    audit: Audit
    db: Db
    sql: Sql
    verdict: Verdict
    provenance: dict[str, Any]
    findings: list[Finding]
    balancer: NotRequired[dict[str, Any]]
    retry_fulfillment: NotRequired[RetryFulfillment]
    reliability: NotRequired[list[dict[str, Any]]]
    profiling: NotRequired[Profiling]
    overload: NotRequired[dict[str, Any]]
    capacity_rpm: NotRequired[float | None]
    capacity_steps_held: NotRequired[int]
    capacity_search: NotRequired[CapacitySearch]
    ceiling: NotRequired[Ceiling | None]
    shed_by_machine: NotRequired[ShedByMachine | None]
    scalability: NotRequired[dict[str, Any]]
    trend: NotRequired[dict[str, Any]]
    client: NotRequired[dict[str, Any]]
    settings: NotRequired[Settings]


# The objects whose every key is listed above: the schema refuses a key they do not name.
CLOSED = (
    Summary,
    Settings,
    FromSchedule,
    CapacitySearch,
    Endpoints,
    EndpointsOfStep,
    Timeline,
    Load,
    LoadGenerator,
    Db,
    Verdict,
    Failure,
    Finding,
    Ceiling,
    BrokenStep,
    ShedByMachine,
)
