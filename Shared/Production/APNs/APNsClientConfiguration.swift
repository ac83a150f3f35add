import Runtime

/// Everything an `APNsClient` needs. The key is held by `APNsSigningKey` and never logged.
public struct APNsClientConfiguration: Sendable {
    public var teamID: String
    public var keyID: String
    public var signingKey: APNsSigningKey
    /// App bundle id; Live Activity pushes use `<bundleID>.push-type.liveactivity` as topic.
    public var bundleID: String
    public var production: APNsEndpoint
    public var sandbox: APNsEndpoint
    /// PEM CA file to trust instead of the system CAs (mock-apns's certificate).
    public var caFile: String?
    public var connectionsPerHost: Int
    public var maxStreamsPerConnection: Int
    public var requestTimeout: Duration
    /// Provider-token age at which a new one is minted (20…60 minutes).
    public var tokenRefreshInterval: Duration
    public var clock: any WallClock

    public init(
        teamID: String, keyID: String, signingKey: APNsSigningKey, bundleID: String,
        production: APNsEndpoint = .production, sandbox: APNsEndpoint = .sandbox, caFile: String? = nil,
        connectionsPerHost: Int = 2, maxStreamsPerConnection: Int = 1000,
        requestTimeout: Duration = .seconds(30), tokenRefreshInterval: Duration = .seconds(50 * 60),
        clock: any WallClock = SystemWallClock()
    ) {
        self.teamID = teamID
        self.keyID = keyID
        self.signingKey = signingKey
        self.bundleID = bundleID
        self.production = production
        self.sandbox = sandbox
        self.caFile = caFile
        self.connectionsPerHost = connectionsPerHost
        self.maxStreamsPerConnection = maxStreamsPerConnection
        self.requestTimeout = requestTimeout
        self.tokenRefreshInterval = tokenRefreshInterval
        self.clock = clock
    }
}
