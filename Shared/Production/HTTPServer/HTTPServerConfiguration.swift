import Foundation

/// Settings of one `HTTPServer`.
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// IPv4 address to listen on; `"localhost"` means `127.0.0.1`. Default `127.0.0.1`.
    public var host: String
    /// TCP port; 0 asks the kernel for a free port (read it back with `HTTPServer.port`).
    public var port: UInt16
    /// Number of server threads, each an epoll loop (handlers run on Swift's task pool, not on these).
    public var threadCount: Int
    /// Largest accepted request body; larger bodies are answered 413 `payload_too_large`.
    public var maxBodyBytes: Int
    /// Idle keep-alive connections, and answers the client does not read, are closed after this long.
    public var connectionTimeout: Duration
    /// A request head (from its first byte, or from the connection's opening) must arrive within this;
    /// otherwise it is answered 408 and the connection closed (slow-header clients).
    public var headerTimeout: Duration
    /// A request body must arrive within this once its head did; otherwise 408 and close.
    public var bodyTimeout: Duration
    /// Most simultaneous connections; more are accepted and closed at once (counted as `connection_limit`).
    public var connectionLimit: Int
    /// How long `stop()` waits for in-flight requests before answering them 503 and closing.
    public var shutdownGracePeriod: Duration

    /// - Parameters: see the properties; every one has a production-ready default.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        threadCount: Int = max(2, ProcessInfo.processInfo.activeProcessorCount),
        maxBodyBytes: Int = 16 * 1024,
        connectionTimeout: Duration = .seconds(30),
        headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(30),
        connectionLimit: Int = 1024,
        shutdownGracePeriod: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.threadCount = threadCount
        self.maxBodyBytes = maxBodyBytes
        self.connectionTimeout = connectionTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.connectionLimit = connectionLimit
        self.shutdownGracePeriod = shutdownGracePeriod
    }
}
