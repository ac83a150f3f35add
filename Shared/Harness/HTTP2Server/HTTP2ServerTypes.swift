import HTTP2

/// A complete request received by an `HTTP2Server`.
public struct HTTP2ServerRequest: Sendable {
    public var method: String
    public var path: String
    public var authority: String
    /// Regular headers in arrival order (names lower-case).
    public var headers: [HTTP2Header]
    public var body: [UInt8]
    /// True when the body was longer than the server's `maxBodySize` (then `body` is truncated).
    public var bodyTruncated: Bool
    /// Identifies the connection (unique per server).
    public var connectionID: Int
    public var streamID: Int32

    public init(
        method: String, path: String, authority: String = "", headers: [HTTP2Header] = [], body: [UInt8] = [],
        bodyTruncated: Bool = false, connectionID: Int = 0, streamID: Int32 = 1
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
        self.bodyTruncated = bodyTruncated
        self.connectionID = connectionID
        self.streamID = streamID
    }

    /// The first value of header `name` (lower-case), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// How many times header `name` appears.
    public func count(of name: String) -> Int {
        headers.reduce(0) { $0 + ($1.name == name ? 1 : 0) }
    }
}

/// What an `HTTP2Server` handler answers; `delay` holds the answer back (the loop keeps serving).
public struct HTTP2ServerResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [HTTP2Header]
    public var body: [UInt8]
    public var delay: Duration?

    public init(status: Int, headers: [HTTP2Header] = [], body: [UInt8] = [], delay: Duration? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }
}

/// Answers one request. Runs on a server event-loop thread: keep it short and never block.
public typealias HTTP2RequestHandler = @Sendable (HTTP2ServerRequest) -> HTTP2ServerResponse

/// Where and how an `HTTP2Server` listens.
public struct HTTP2ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port (see `HTTP2Server.port`).
    public var port: Int
    public var certificateFile: String
    public var privateKeyFile: String
    /// SETTINGS_MAX_CONCURRENT_STREAMS announced to clients (changeable at run time).
    public var maxConcurrentStreams: Int
    /// Send GOAWAY on a connection once it has opened this many streams (nil: never).
    public var goAwayAfterStreams: Int?
    /// Event-loop threads; accepted connections are spread over them.
    public var threads: Int
    /// Request bodies are kept up to this size; longer ones are marked `bodyTruncated`.
    public var maxBodySize: Int

    public init(
        host: String = "127.0.0.1", port: Int = 0, certificateFile: String, privateKeyFile: String,
        maxConcurrentStreams: Int = 1000, goAwayAfterStreams: Int? = nil, threads: Int = 1, maxBodySize: Int = 64 * 1024
    ) {
        self.host = host
        self.port = port
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.maxConcurrentStreams = maxConcurrentStreams
        self.goAwayAfterStreams = goAwayAfterStreams
        self.threads = max(1, threads)
        self.maxBodySize = maxBodySize
    }
}
