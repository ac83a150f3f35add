import Runtime

/// Where pushes for one APNs environment go.
public struct APNsEndpoint: Sendable, Equatable {
    /// Address to connect to.
    public var host: String
    public var port: Int
    /// TLS name to verify (and SNI); `host` unless overridden.
    public var serverName: String

    public init(host: String, port: Int = 443, serverName: String? = nil) {
        self.host = host
        self.port = port
        self.serverName = serverName ?? host
    }

    /// api.push.apple.com:443
    public static let production = APNsEndpoint(host: "api.push.apple.com")
    /// api.sandbox.push.apple.com:443
    public static let sandbox = APNsEndpoint(host: "api.sandbox.push.apple.com")

    /// Channel management, production: api-manage-broadcast.push.apple.com:2196 (broadcasts themselves go to
    /// the push host, `production`).
    public static let manageProduction = APNsEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196)
    /// Channel management, sandbox: api-manage-broadcast.sandbox.push.apple.com:2195.
    public static let manageSandbox = APNsEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195)

    /// mock-apns (or anything) on loopback; its certificate covers 127.0.0.1 and localhost.
    public static func local(port: Int) -> APNsEndpoint { APNsEndpoint(host: "127.0.0.1", port: port) }
}

/// How apns-sender retries `.retry` answers (`RetryScheduler`): jittered exponential back-off, never past the
/// push's expiration. `APNsClient` itself makes one attempt per push (plus one after minting a new provider
/// token); the retrying is its caller's, in one place.
public struct APNsRetryPolicy: Sendable, Equatable {
    /// Total attempts including the first (1 = no retry).
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(5)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Delay before attempt `attempt + 1` (attempt ≥ 1): base·2^(attempt-1), capped, times 0.5…1.
    public func delay(afterAttempt attempt: Int) -> Duration {
        Backoff(initial: baseDelay, maximum: maxDelay).jitteredDelay(afterFailures: attempt)
    }
}
