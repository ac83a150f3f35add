/// The APNs environment a device token belongs to (which host its pushes go to).
public enum APNsServerEnvironment: String, Sendable, Hashable, CaseIterable {
    case sandbox
    case production
}

/// What kind of push a request is: it decides `apns-push-type` and `apns-topic`.
public enum APNsPushType: Sendable, Hashable, CaseIterable {
    /// A Live Activity push (update, end, push-to-start): type `liveactivity`, topic `<bundle>.push-type.liveactivity`.
    case liveActivity
    /// A regular notification: type `alert`, topic `<bundle>`.
    case alert
    /// A background notification (`content-available`, priority 5): type `background`, topic `<bundle>`.
    case background
}

/// One device token and its environment: all the transport needs to know about a target (the app's user and
/// device ids stay with the caller).
public struct APNsDeviceToken: Sendable, Hashable {
    /// Hex token.
    public var token: String
    public var environment: APNsServerEnvironment

    public init(_ token: String, environment: APNsServerEnvironment) {
        self.token = token
        self.environment = environment
    }
}

/// One push to one device: the exact body and the headers' values.
public struct APNsPush: Sendable, Hashable {
    /// The exact JSON body.
    public var payload: [UInt8]
    public var device: APNsDeviceToken
    public var type: APNsPushType
    /// 10 (immediate) or 5 (power-considerate).
    public var priority: Int
    /// `apns-expiration` (Unix seconds); nil leaves the header out.
    public var expiration: Int64?
    /// Use `APNsID.derive(jobID:token:)` so replays reuse it.
    public var apnsID: String
    public var collapseID: String?

    public init(payload: [UInt8], device: APNsDeviceToken, type: APNsPushType, priority: Int, expiration: Int64?, apnsID: String,
                collapseID: String? = nil) {
        self.payload = payload
        self.device = device
        self.type = type
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
    }
}
