/// Why an `HTTPServer` could not start. Carries the address it tried.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// `host` is not an IPv4 address.
        case invalidHost
        /// The socket could not be created, bound or put into listening state (e.g. port in use).
        case bindFailed
        /// A server thread's event loop could not be created (descriptor limit).
        case eventLoopFailed
        /// `start()` was called on a server that is running or was stopped.
        case invalidState
    }

    /// What went wrong.
    public let kind: Kind
    /// The configured host.
    public let host: String
    /// The configured port.
    public let port: UInt16
    /// The system's explanation, e.g. `Address already in use`.
    public let reason: String

    public init(kind: Kind, host: String, port: UInt16, reason: String) {
        self.kind = kind
        self.host = host
        self.port = port
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .invalidHost: "invalid listen host \(host):\(port): \(reason)"
        case .bindFailed: "cannot listen on \(host):\(port): \(reason)"
        case .eventLoopFailed: "cannot start HTTP server threads on \(host):\(port): \(reason)"
        case .invalidState: "cannot start HTTP server on \(host):\(port): \(reason)"
        }
    }
}
