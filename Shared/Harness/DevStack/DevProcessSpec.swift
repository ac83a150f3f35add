import Foundation

/// How the supervisor decides that a started process is ready.
public enum ReadinessProbe: Sendable, Equatable {
    /// `GET url` answers 200 (e.g. a service's `/ready`, a tool's `/health`).
    case http(String)
    /// The process's log (stdout + stderr) contains this text.
    case logLine(String)
    /// Ready as soon as it runs.
    case none
}

/// One process of the dev stack: which executable of the build's bin directory, with which
/// arguments and environment, and how to tell it is ready.
public struct DevProcessSpec: Sendable, Equatable {
    /// Short unique name (`api`, `mock-apns`, …); also the log file's name.
    public var name: String
    /// Executable name inside the bin directory (a product name), or an absolute path (a system tool).
    public var executable: String
    public var arguments: [String]
    /// The complete environment of the process (nothing is inherited implicitly).
    public var environment: [String: String]
    public var readiness: ReadinessProbe
    /// How long `readiness` may take before the start counts as failed.
    public var readyTimeout: Duration

    public init(name: String, executable: String, arguments: [String] = [], environment: [String: String] = [:],
                readiness: ReadinessProbe = .none, readyTimeout: Duration = .seconds(60)) {
        self.name = name
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.readiness = readiness
        self.readyTimeout = readyTimeout
    }
}
