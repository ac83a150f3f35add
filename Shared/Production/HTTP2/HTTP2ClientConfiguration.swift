/// Where and how an `HTTP2Client` connects.
public struct HTTP2ClientConfiguration: Sendable {
    /// Address to connect to (a name or an IP literal).
    public var host: String
    public var port: Int
    /// TLS server name for SNI and certificate verification; defaults to `host`. An IP literal is
    /// checked against the certificate's IP subjectAltNames and sends no SNI.
    public var serverName: String
    /// `:authority` sent with each request; defaults to `serverName`.
    public var authority: String
    /// PEM file of CA certificates to trust (e.g. mock-apns's self-signed certificate); nil = system CAs.
    public var caFile: String?
    /// Verify the server certificate (only tests against throwaway servers turn this off).
    public var verifyCertificate: Bool
    /// Connections kept open to the host; requests go to the least-loaded ready one.
    public var connections: Int
    /// Upper bound on streams per connection even if the server allows more.
    public var maxStreamsPerConnection: Int
    /// Requests wait in a queue for a free stream; beyond this many queued, `send` fails at once
    /// with `.connectionLost("queue full")`.
    public var maxQueuedRequests: Int
    /// A request without a complete response after this long fails with `.timeout` (retryable).
    public var requestTimeout: Duration
    /// TCP connect + TLS handshake + server SETTINGS must finish within this.
    public var connectTimeout: Duration
    /// Send a PING when a connection has been idle this long; close it if no ACK within `pingTimeout`.
    public var pingInterval: Duration
    public var pingTimeout: Duration
    /// Reconnect back-off after failed connects: base doubles up to max (with jitter).
    public var reconnectBaseDelay: Duration
    public var reconnectMaxDelay: Duration
    /// How often a request refused by the server (GOAWAY, REFUSED_STREAM) is re-queued before failing.
    public var maxRequeues: Int
    /// Our connection-level and per-stream receive windows.
    public var receiveWindow: Int32
    /// The largest response body taken; a larger one fails its request with `.responseTooLarge` (never a cut body).
    /// APNs answers with a few hundred bytes; a control API listing a run's records needs more.
    public var maxResponseBodyBytes: Int

    public init(
        host: String, port: Int = 443, serverName: String? = nil, authority: String? = nil, caFile: String? = nil,
        verifyCertificate: Bool = true, connections: Int = 2, maxStreamsPerConnection: Int = 1000,
        maxQueuedRequests: Int = 1_000_000, requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(10),
        pingInterval: Duration = .seconds(60), pingTimeout: Duration = .seconds(10),
        reconnectBaseDelay: Duration = .milliseconds(100), reconnectMaxDelay: Duration = .seconds(30),
        maxRequeues: Int = 5, receiveWindow: Int32 = 1 << 24, maxResponseBodyBytes: Int = 1 << 20
    ) {
        self.host = host
        self.port = port
        self.serverName = serverName ?? host
        self.authority = authority ?? serverName ?? host
        self.caFile = caFile
        self.verifyCertificate = verifyCertificate
        self.connections = max(1, connections)
        self.maxStreamsPerConnection = max(1, maxStreamsPerConnection)
        self.maxQueuedRequests = maxQueuedRequests
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.reconnectBaseDelay = reconnectBaseDelay
        self.reconnectMaxDelay = reconnectMaxDelay
        self.maxRequeues = maxRequeues
        self.receiveWindow = receiveWindow
        self.maxResponseBodyBytes = max(0, maxResponseBodyBytes)
    }
}
