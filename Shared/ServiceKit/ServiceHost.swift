import Foundation
import HTTPServer
import Runtime

/// What a service's work receives from its host.
public struct ServiceContext: Sendable {
    /// The service's logger (JSON lines on stderr).
    public let logger: Logger
    /// The registry rendered at `/metrics`.
    public let metrics: MetricsRegistry
    /// Conditions reported at `/ready`.
    public let readiness: Readiness
    /// Fires on SIGTERM/SIGINT; long loops may watch it to drain before cancellation.
    public let shutdown: ShutdownSignal
}

/// Runs one service process: reads its configuration, serves the operations routes, runs the
/// work until SIGTERM/SIGINT, lets it drain for the grace period, then stops everything.
///
/// Exit codes: 0 after a clean stop, 1 when the work failed, 78 (EX_CONFIG) when configuration
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

    /// Runs `work` as service `name` and never returns.
    /// - Parameters:
    ///   - name: the service name used in logs and `/health`.
    ///   - options: operations server and logging options (see `ServiceOptions`).
    ///   - routes: extra routes on the operations server (the api adds its whole API here).
    ///   - work: the service's loop; it should return or throw promptly once cancelled.
    public static func run(
        name: String,
        options: ServiceOptions,
        metrics: MetricsRegistry = MetricsRegistry(),
        routes: (inout Router, ServiceContext) -> Void = { _, _ in },
        work: @escaping @Sendable (ServiceContext) async throws -> Void
    ) async -> Never {
        // A peer that closes its socket (an APNs GOAWAY followed by close, a client gone) must give
        // EPIPE to the write, not kill the process: SSL_write uses write(2), whose SIGPIPE terminates
        // by default (the fault suite's "GOAWAY every 5 streams" killed apns-sender silently).
        signal(SIGPIPE, SIG_IGN)
        let logger = Logger(label: name, minimumLevel: options.logLevel)
        let context = ServiceContext(logger: logger, metrics: metrics, readiness: Readiness(), shutdown: ShutdownSignal())
        var router = Router()
        OperationsRoutes.install(on: &router, service: name, readiness: context.readiness, metrics: metrics)
        routes(&router, context)
        let configuration = HTTPServerConfiguration(host: options.httpHost, port: options.httpPort)
        let server = HTTPServer(configuration: configuration, router: router, logger: logger.child("http"), metrics: metrics)
        do {
            try server.start()
        } catch {
            failStart(service: name, error)
        }
        logger.info("started", ["event": "started", "port": String(server.port), "pid": String(getpid())])

        let exitCode = await supervise(work: work, context: context, grace: options.shutdownGrace)
        context.readiness.set("shutdown", false)
        server.stop()
        logger.info("stopped", ["event": "stopped", "exit_code": String(exitCode)])
        exit(exitCode)
    }

    /// Runs `work` until it ends or a signal arrives; after a signal, waits `grace` then cancels.
    static func supervise(
        work: @escaping @Sendable (ServiceContext) async throws -> Void, context: ServiceContext, grace: Duration
    ) async -> Int32 {
        // Work that ignores cancellation (or blocks every cooperative thread) must not keep the process
        // alive forever: an orchestrator would SIGKILL it anyway; exiting here at least says why.
        context.shutdown.onSignal(after: grace + hardStopAfterCancel) { [logger = context.logger] in
            logger.error("work did not stop after the grace period and cancellation; exiting", ["event": "shutdown_forced"])
            exit(1)
        }
        let task = Task { try await work(context) }
        let outcome = Task { () -> Int32 in
            do {
                try await task.value
                return 0
            } catch is CancellationError {
                return 0
            } catch {
                context.logger.error("service failed: \(error)", ["event": "failed"])
                return 1
            }
        }
        let watcher = Task {
            let signal = await context.shutdown.wait()
            context.logger.info("shutdown requested", ["event": "shutdown", "signal": String(signal)])
            try? await Task.sleep(for: grace)
            task.cancel()
        }
        let code = await outcome.value
        watcher.cancel()
        return code
    }
}
