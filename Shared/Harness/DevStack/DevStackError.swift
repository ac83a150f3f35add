/// Why the dev stack could not do what it was asked; every case names the process or file.
public enum DevStackError: Error, Sendable, CustomStringConvertible {
    /// The executable is not in the bin directory (not built).
    case notBuilt(executable: String, binDirectory: String)
    /// The process could not be spawned.
    case spawnFailed(name: String, reason: String)
    /// The process exited before it became ready; `logTail` are its last log lines.
    case exitedEarly(name: String, status: Int32, logTail: String)
    /// The readiness probe did not pass in time.
    case notReady(name: String, probe: String, logTail: String)
    /// No process of that name is managed.
    case unknownProcess(name: String)
    /// A helper command (key generation, …) failed.
    case commandFailed(command: String, status: Int32, output: String)
    /// A request to one of the stack's processes failed.
    case request(url: String, reason: String)
    /// A wait for a condition of the running stack timed out.
    case timedOut(waitingFor: String)
    /// The wait was cancelled (Ctrl-C during start-up).
    case cancelled(waitingFor: String)
    /// A bad option (match file missing, …).
    case invalidOption(String)
    /// Processes an earlier `sightscreen dev` started still run (they would share its topics).
    case leftovers([DevLeftovers.Process], pidFile: String)

    public var description: String {
        switch self {
        case .notBuilt(let executable, let bin):
            "\(executable) is not built in \(bin): run `swift build` (or `swift build --build-tests`)"
        case .spawnFailed(let name, let reason): "cannot start \(name): \(reason)"
        case .exitedEarly(let name, let status, let tail): "\(name) exited with status \(status) before it was ready; log tail:\n\(tail)"
        case .notReady(let name, let probe, let tail): "\(name) not ready (\(probe)) in time; log tail:\n\(tail)"
        case .unknownProcess(let name): "no managed process named \(name)"
        case .commandFailed(let command, let status, let output): "`\(command)` failed with status \(status): \(output)"
        case .request(let url, let reason): "request \(url) failed: \(reason)"
        case .timedOut(let what): "timed out waiting for \(what)"
        case .cancelled(let what): "cancelled while waiting for \(what)"
        case .invalidOption(let message): message
        case .leftovers(let processes, let file):
            "an earlier sightscreen dev left \(processes.count) process(es) running: "
                + processes.map(\.description).joined(separator: ", ")
                + " (recorded in \(file)); they would consume the same topics. Stop them: kill "
                + processes.map { String($0.pid) }.joined(separator: " ")
        }
    }
}
