import Foundation
import Runtime

/// Runs a process's services together and shuts them down in one order (the shape of
/// swift-service-lifecycle's `ServiceGroup`).
///
/// - Every service's `run()` runs in a child task with its own `GracefulShutdown` trigger.
/// - On SIGTERM/SIGINT (or `triggerGracefulShutdown()`), `readiness` turns false at once, then the
///   services are asked to finish one at a time, **last listed first**, each once the one after it
///   has returned. List them in start order — pools, producers, consumers, loops, the HTTP server —
///   and they stop as a service should: HTTP stops accepting and drains, loops stop polling and
///   commit what is done, consumers close, producers flush, pools close.
/// - `grace` after the signal, the service being stopped is cancelled (stop now: abandon what is
///   unfinished); the ones listed before it are then still stopped in order, gracefully, since
///   releasing a producer or a pool is quick and must come after its users — each within a `grace` of
///   its own, then cancelled too, so that one more stubborn service cannot keep the group waiting for
///   ever. `hardStop` after the first deadline the process exits 1 from the signal queue (so it exits
///   even when every cooperative thread is blocked).
/// - A service that returns or throws before shutdown starts the same ordered shutdown of the rest.
public final class ServiceGroup: Sendable {
    private let services: [any Service]
    private let signal: ShutdownSignal
    private let readiness: Readiness?
    private let logger: Logger
    private let grace: Duration
    private let hardStop: Duration?

    /// - Parameters:
    ///   - signal: the process signals (default: SIGTERM and SIGINT).
    ///   - readiness: set to not ready (`shutdown`) the moment shutdown begins.
    ///   - grace: `SHUTDOWN_GRACE_MS`: from the signal until cancellation.
    ///   - hardStop: from cancellation until `exit(1)`; nil never exits (tests run groups in-process).
    public init(
        services: [any Service], signal: ShutdownSignal = ShutdownSignal(), readiness: Readiness? = nil, logger: Logger,
        grace: Duration, hardStop: Duration? = .seconds(15)
    ) {
        self.services = services
        self.signal = signal
        self.readiness = readiness
        self.logger = logger
        self.grace = grace
        self.hardStop = hardStop
    }

    /// Starts the ordered shutdown, as if SIGTERM had arrived.
    public func triggerGracefulShutdown() { signal.trigger(SIGTERM) }

    private enum Event: Sendable {
        case finished(index: Int, error: (any Error)?)
        case signal(Int32)
        case deadline
        /// The `grace` of one service asked to stop after the deadline.
        case serviceDeadline(index: Int)
    }

    /// Runs every service until all have returned. Returns the exit code: 0 when every service
    /// returned (or was cancelled) after shutdown was requested, 1 when one threw or ended early.
    public func run() async -> Int32 {
        let logger = self.logger
        if let hardStop {
            signal.onSignal(after: grace + hardStop) {
                logger.error("services did not stop after the grace period and cancellation; exiting", ["event": "shutdown_forced"])
                exit(1)
            }
        }
        let triggers = services.map { _ in GracefulShutdownTrigger() }
        // Each service runs in a task of its own so that the deadline can cancel just the one that
        // is stopping; the group's child only awaits it (and forwards a cancellation of the group).
        let tasks = services.enumerated().map { index, service in
            let trigger = triggers[index]
            return Task { try await GracefulShutdown.$trigger.withValue(trigger) { try await service.run() } }
        }
        return await withTaskGroup(of: Event.self) { group in
            for (index, task) in tasks.enumerated() {
                group.addTask {
                    do {
                        try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
                        return .finished(index: index, error: nil)
                    } catch {
                        return .finished(index: index, error: error)
                    }
                }
            }
            group.addTask { [signal] in
                let number = await signal.wait()
                return number.map { .signal($0) } ?? .deadline
            }
            var running = Set(services.indices)
            var asked = Set<Int>()
            var shuttingDown = false
            var pastDeadline = false
            var exitCode: Int32 = 0

            /// Asks the last-listed running service to finish, unless one is already finishing. Past the deadline, it
            /// gets a `grace` of its own before it is cancelled.
            func askNext() {
                guard asked.intersection(running).isEmpty, let next = running.max() else { return }
                asked.insert(next)
                logger.info("stopping service", ["event": "service_stopping", "service": services[next].name])
                triggers[next].trigger()
                if pastDeadline {
                    let grace = self.grace
                    group.addTask {
                        try? await Task.sleep(for: grace)
                        return .serviceDeadline(index: next)
                    }
                }
            }
            func beginShutdown(_ reason: String) {
                guard !shuttingDown else { return }
                shuttingDown = true
                readiness?.set("shutdown", false)
                logger.info("shutdown requested", ["event": "shutdown", "reason": reason])
                if !signal.isTriggered { signal.trigger(SIGTERM) }
                let grace = self.grace
                group.addTask {
                    try? await Task.sleep(for: grace)
                    return .deadline
                }
                askNext()
            }

            while let event = await group.next() {
                switch event {
                case .signal(let number):
                    beginShutdown("signal \(number)")
                case .deadline:
                    let stopping = asked.intersection(running)
                    guard shuttingDown else { continue }
                    pastDeadline = true
                    guard !stopping.isEmpty else { continue }
                    logger.warning("grace period over; cancelling", [
                        "event": "shutdown_cancel", "services": stopping.sorted().map { services[$0].name }.joined(separator: ","),
                    ])
                    for index in stopping { tasks[index].cancel() }
                case .serviceDeadline(let index):
                    guard running.contains(index) else { continue }
                    logger.warning("grace period over; cancelling", ["event": "shutdown_cancel", "services": services[index].name])
                    tasks[index].cancel()
                case .finished(let index, let error):
                    running.remove(index)
                    let name = services[index].name
                    if let error, !(error is CancellationError) {
                        logger.error("service failed: \(error)", ["event": "failed", "service": name])
                        exitCode = 1
                    } else if !shuttingDown {
                        logger.error("service ended before shutdown", ["event": "failed", "service": name])
                        exitCode = 1
                    } else {
                        logger.info("service stopped", ["event": "service_stopped", "service": name])
                    }
                    beginShutdown("\(name) ended")
                    if running.isEmpty {
                        group.cancelAll()  // the signal watcher and the deadline timer
                    } else {
                        askNext()
                    }
                }
            }
            return exitCode
        }
    }
}
