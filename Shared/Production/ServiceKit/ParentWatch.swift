import Dispatch
import Foundation
import Runtime

/// Stops a child of `sightscreen dev` when its supervisor dies, even by `kill -9`: every 250 ms
/// (a timer on its own dispatch queue, not the cooperative pool) it compares `getppid()` with the
/// supervisor's pid, and on a change — the child was re-parented — triggers graceful shutdown.
///
/// Enabled by `SIGHTSCREEN_PARENT_PID` (`ServiceOptions.parentPID`), which `DevSupervisor` sets
/// for every process it starts. Production deployments leave it unset.
public final class ParentWatch: Sendable {
    // A dispatch source is thread-safe to cancel; only `cancel()` touches it after init.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    /// Starts watching `parentPID`; fires `signal` once when the parent is gone.
    public init(parentPID: Int32, signal: ShutdownSignal, logger: Logger) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "sightscreen.parent-watch"))
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { [timer] in
            guard getppid() != parentPID else { return }
            logger.warning("supervisor is gone; shutting down", ["event": "parent_gone", "parentPid": String(parentPID)])
            signal.trigger(SIGTERM)
            timer.cancel()
        }
        timer.resume()
        self.timer = timer
    }

    /// The variable `sightscreen dev` sets to its pid in every child's environment.
    public static let variable = SupervisorEnvironment.parentPIDVariable

    /// Reads `SIGHTSCREEN_PARENT_PID` (unset: nil).
    public static func parentPID(_ environment: EnvironmentReader) throws(ConfigurationError) -> Int32? {
        try environment.optionalInt(variable, in: 2...Int(Int32.max)).map { Int32($0) }
    }

    /// For the dev peers that read no `ServiceOptions` (fake-sportmonks, mock-apns): the watch
    /// their environment asks for; an unusable value is logged and ignored.
    public static func fromEnvironment(signal: ShutdownSignal, logger: Logger) -> ParentWatch? {
        do {
            return try parentPID(EnvironmentReader()).map { ParentWatch(parentPID: $0, signal: signal, logger: logger) }
        } catch {
            logger.warning("ignoring \(variable): \(error)")
            return nil
        }
    }

    /// The watch `options` ask for, if any.
    static func start(options: ServiceOptions, signal: ShutdownSignal, logger: Logger) -> ParentWatch? {
        options.parentPID.map { ParentWatch(parentPID: $0, signal: signal, logger: logger) }
    }

    /// Stops watching.
    public func cancel() { timer.cancel() }
}
