import Runtime

/// What every service reads from the environment before anything else.
public struct ServiceOptions: Sendable {
    /// Address of the operations server (`/health`, `/ready`, `/metrics`); loopback by default.
    public var httpHost: String
    /// Port of the operations server (`HTTP_PORT`); 0 picks a free port.
    public var httpPort: UInt16
    /// `METRICS_PORT`: when set, `/metrics` (with `/health` and `/ready`) is served on this separate listener
    /// only, never on `httpPort`; 0 picks a free port (logged at start). The api sets it by default: its
    /// `httpPort` is the internet's, its metrics are for Prometheus alone.
    public var metricsPort: UInt16?
    /// `LOG_LEVEL`: debug, info, warning or error.
    public var logLevel: LogLevel
    /// How long in-flight work may take to finish after SIGTERM (`SHUTDOWN_GRACE_MS`).
    public var shutdownGrace: Duration
    /// `SHUTDOWN_READY_DELAY_MS`: after SIGTERM, how long the HTTP server keeps serving (with
    /// `/ready` answering 503) before it stops accepting and drains, so that a load balancer polling
    /// `/ready` sees the 503 and stops routing to it first. At most `shutdownGrace`.
    public var readyDelay: Duration
    /// `SIGHTSCREEN_PARENT_PID`: set by `sightscreen dev` for its children; when the process's
    /// parent is no longer this pid (the supervisor died), it shuts down (`ParentWatch`).
    public var parentPID: Int32?

    public init(
        httpHost: String = "127.0.0.1", httpPort: UInt16, logLevel: LogLevel = .info, shutdownGrace: Duration = .seconds(10),
        readyDelay: Duration = .seconds(1), parentPID: Int32? = nil, metricsPort: UInt16? = nil
    ) {
        self.metricsPort = metricsPort
        self.readyDelay = min(readyDelay, shutdownGrace)
        self.parentPID = parentPID
        self.httpHost = httpHost
        self.httpPort = httpPort
        self.logLevel = logLevel
        self.shutdownGrace = shutdownGrace
    }

    /// Reads `HTTP_HOST`, `HTTP_PORT`, `METRICS_PORT`, `LOG_LEVEL`, `SHUTDOWN_GRACE_MS`,
    /// `SHUTDOWN_READY_DELAY_MS` and `SIGHTSCREEN_PARENT_PID`.
    /// - Parameter defaultMetricsPort: `METRICS_PORT` when unset (nil: `/metrics` on the operations port).
    public init(_ environment: EnvironmentReader, defaultPort: UInt16, defaultMetricsPort: UInt16? = nil) throws(ConfigurationError) {
        self.init(
            httpHost: environment.string("HTTP_HOST", default: "127.0.0.1"),
            httpPort: try environment.port("HTTP_PORT", default: defaultPort, allowZero: true),
            logLevel: try environment.logLevel("LOG_LEVEL", default: .info),
            shutdownGrace: try environment.milliseconds("SHUTDOWN_GRACE_MS", default: .seconds(10), in: 0...600_000),
            readyDelay: try environment.milliseconds("SHUTDOWN_READY_DELAY_MS", default: .seconds(1), in: 0...600_000),
            parentPID: try ParentWatch.parentPID(environment),
            metricsPort: try environment.optionalInt("METRICS_PORT", in: 0...65535).map(UInt16.init) ?? defaultMetricsPort
        )
    }
}
