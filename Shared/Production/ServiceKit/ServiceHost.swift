import Foundation
import HTTPServer
import Runtime

/// What a service's `makeServices` receives from its host.
public struct ServiceContext: Sendable {
    /// The service's logger (JSON lines on stderr).
    public let logger: Logger
    /// The registry rendered at `/metrics`.
    public let metrics: MetricsRegistry
    /// Conditions reported at `/ready`; the group adds `shutdown` (false) the moment shutdown begins.
    public let readiness: Readiness
}

/// Runs one service process: reads its configuration, serves the operations routes, runs the
/// process's services as one `ServiceGroup` until SIGTERM/SIGINT, shuts them down in order, exits.
///
/// Exit codes: 0 after a clean stop, 1 when a service failed, 78 (EX_CONFIG) when configuration
/// is invalid — the log line names the variable.
public enum ServiceHost {
    /// How long cancelled work may take to return before the process exits anyway (code 1).
    static let hardStopAfterCancel: Duration = .seconds(15)

    /// Exit code for a configuration error (sysexits EX_CONFIG).
    public static let configurationErrorExitCode: Int32 = 78

    /// Reads the service's configuration, or logs why it cannot and exits with 78.
    public static func loadConfiguration<Configuration>(
        service: String, _ read: () throws -> Configuration
    ) -> Configuration {
        do {
            return try read()
        } catch {
            Logger(label: service).error("invalid configuration: \(error)", ["event": "start_failed"])
            exit(configurationErrorExitCode)
        }
    }

    /// Logs a start-up failure that is not configuration (e.g. an old librdkafka) and exits with 1.
    public static func failStart(service: String, _ error: any Error) -> Never {
        Logger(label: service).error("cannot start: \(error)", ["event": "start_failed"])
        exit(1)
    }

    /// Runs the services of process `name` and never returns.
    ///
    /// The HTTP server (operations routes plus `routes`) starts first, so `/health` answers while
    /// `makeServices` connects; it is the group's last service, so on shutdown it is the first to
    /// stop accepting and drain. `makeServices` returns the rest in start order (pools, producers,
    /// consumers, loops); the group stops them in reverse order once HTTP has drained.
    /// - Parameters:
    ///   - name: the service name used in logs and `/health`.
    ///   - options: operations server, logging and grace options (see `ServiceOptions`).
    ///   - routes: extra routes on the operations server (the api adds its whole API here).
    ///   - makeServices: creates the resources and loops; throwing exits 1.
    public static func run(
        name: String,
        options: ServiceOptions,
        metrics: MetricsRegistry = MetricsRegistry(),
        routes: (inout Router, ServiceContext) -> Void = { _, _ in },
        makeServices: (ServiceContext) async throws -> [any Service]
    ) async -> Never {
        // A peer that closes its socket (an APNs GOAWAY followed by close, a client gone) must give
        // EPIPE to the write, not kill the process: SSL_write uses write(2), whose SIGPIPE terminates
        // by default (the fault suite's "GOAWAY every 5 streams" killed apns-sender silently).
        signal(SIGPIPE, SIG_IGN)
        let logger = Logger(label: name, minimumLevel: options.logLevel)
        let signal = ShutdownSignal()
        let context = ServiceContext(logger: logger, metrics: metrics, readiness: Readiness())
        var router = Router()
        let separateMetrics = options.metricsPort != nil
        OperationsRoutes.install(on: &router, service: name, readiness: context.readiness, metrics: separateMetrics ? nil : metrics)
        routes(&router, context)
        var configuration = HTTPServerConfiguration(host: options.httpHost, port: options.httpPort)
        configuration.shutdownGracePeriod = min(configuration.shutdownGracePeriod, options.shutdownGrace)
        let server = HTTPServer(configuration: configuration, router: router, logger: logger.child("http"), metrics: metrics)
        let metricsServer = options.metricsPort.map { port in
            metricsListener(name: name, options: options, port: port, readiness: context.readiness, metrics: metrics, logger: logger)
        }
        do {
            try server.start()
            try metricsServer?.start()
        } catch {
            failStart(service: name, error)
        }
        var started = ["event": "started", "port": String(server.port), "pid": String(getpid())]
        if let metricsServer { started["metrics_port"] = String(metricsServer.port) }
        logger.info("started", started)
        let parentWatch = ParentWatch.start(options: options, signal: signal, logger: logger)

        // A signal during start-up (a migration waiting for its lock, a broker not there yet) has
        // no group to stop it yet: the same deadline as the group's then ends the process.
        signal.onSignal(after: options.shutdownGrace + hardStopAfterCancel) {
            logger.error("stopped during start-up: the services did not start within the grace period", ["event": "shutdown_forced"])
            exit(1)
        }
        let services: [any Service]
        do {
            services = try await makeServices(context)
        } catch {
            logger.error("cannot start: \(error)", ["event": "start_failed"])
            await server.stop()
            exit(1)
        }
        // The public server is the last service, so the first to stop; the metrics listener stops after it,
        // so Prometheus still sees the drain.
        let servers = (metricsServer.map { [HTTPServerService(server: $0, name: "metrics-http")] } ?? [])
            + [HTTPServerService(server: server, readyDelay: options.readyDelay)]
        let group = ServiceGroup(
            services: services + servers, signal: signal, readiness: context.readiness,
            logger: logger, grace: options.shutdownGrace, hardStop: hardStopAfterCancel)
        let exitCode = await group.run()
        parentWatch?.cancel()
        logger.info("stopped", ["event": "stopped", "exit_code": String(exitCode)])
        exit(exitCode)
    }
}

extension ServiceHost {
    /// The separate operations listener of `METRICS_PORT`: `/metrics`, `/health`, `/ready`, on the operations
    /// host, one thread, a few connections (Prometheus and probes).
    static func metricsListener(
        name: String, options: ServiceOptions, port: UInt16, readiness: Readiness, metrics: MetricsRegistry, logger: Logger
    ) -> HTTPServer {
        var router = Router()
        OperationsRoutes.install(on: &router, service: name, readiness: readiness, metrics: metrics)
        var configuration = HTTPServerConfiguration(host: options.httpHost, port: port, threadCount: 1, connectionLimit: 64)
        configuration.shutdownGracePeriod = min(configuration.shutdownGracePeriod, options.shutdownGrace)
        return HTTPServer(configuration: configuration, router: router, logger: logger.child("metrics-http"))
    }
}

/// The HTTP server as a service: serves until its graceful shutdown; then keeps serving for
/// `readyDelay` (the group has already turned `/ready` to 503, and a load balancer polling it
/// needs a moment to stop routing here), then stops accepting and drains in-flight requests
/// (`HTTPServer.stop()`).
public struct HTTPServerService: Service {
    public let name: String
    public let server: HTTPServer
    public let readyDelay: Duration

    public init(server: HTTPServer, readyDelay: Duration = .zero, name: String = "http") {
        self.server = server
        self.readyDelay = readyDelay
        self.name = name
    }

    public func run() async throws {
        if (try? await GracefulShutdown.wait()) != nil, readyDelay > .zero {
            try? await Task.sleep(for: readyDelay)
        }
        await server.stop()
    }
}
