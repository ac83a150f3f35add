import Contracts

/// The Sightscreen backend as the app sees it: one method per route the client calls.
///
/// The simulator implements it with a real HTTP client (which also carries the user's identity);
/// tests implement it with fakes. Methods throw whatever the transport throws; the managers treat
/// any error as "this attempt failed" and apply their own retry or queueing rules.
public protocol BackendAPI: Sendable {
    /// `POST /devices` — register or refresh this device and its tokens.
    func registerDevice(_ registration: DeviceRegistration) async throws
    /// `POST /user/follow/match {matchId, deviceId}`.
    func followMatch(matchId: String, deviceId: String) async throws -> FollowResponse
    /// `DELETE /user/follow/match {matchId}`.
    func unfollowMatch(matchId: String) async throws
    /// `GET /user/follows`.
    func listFollows() async throws -> FollowList
    /// `POST /matches/:matchId/activity-token {token, deviceId}`.
    func postActivityToken(matchId: String, token: String, deviceId: String) async throws
    /// `POST /matches/:matchId/activity-token {channelId, deviceId}`: a channel activity runs.
    func postActivityChannel(matchId: String, channelId: String, deviceId: String) async throws
    /// `POST /matches/:matchId/activity-dismissed {deviceId}`.
    func postActivityDismissed(matchId: String, deviceId: String) async throws
    /// `GET /app/config`.
    func fetchAppConfig() async throws -> AppConfig
}

/// Body of `POST /devices`.
public struct DeviceRegistration: Codable, Sendable, Equatable {
    public var deviceId: String
    /// Standard APNs device token (hex), when known.
    public var pushToken: String?
    /// ActivityKit push-to-start token (hex), when known.
    public var pushToStartToken: String?
    public var apnsEnvironment: APNsEnvironment
    public var appVersion: String
    /// The iOS version ("18.2"), when the build reports it.
    public var osVersion: String? = nil
    /// True when this build subscribes activities to broadcast channels.
    public var supportsBroadcastChannels: Bool? = nil

    public init(
        deviceId: String, pushToken: String?, pushToStartToken: String?, apnsEnvironment: APNsEnvironment,
        appVersion: String
    ) {
        self.deviceId = deviceId
        self.pushToken = pushToken
        self.pushToStartToken = pushToStartToken
        self.apnsEnvironment = apnsEnvironment
        self.appVersion = appVersion
    }
}

/// Answer of `POST /user/follow/match`: a live match comes with its cached display state.
public struct FollowResponse: Codable, Sendable, Equatable {
    public var displayState: UnifiedDisplayState?
    /// The match's broadcast channel for this device (iOS 18+, a capable build): start `.channel(channelId)`.
    public var channelId: String?
    public init(displayState: UnifiedDisplayState? = nil, channelId: String? = nil) {
        self.displayState = displayState
        self.channelId = channelId
    }
}

/// One follow record of `GET /user/follows` (other fields the server sends are ignored).
public struct FollowRecord: Codable, Sendable, Equatable {
    public var matchId: String
    public init(matchId: String) { self.matchId = matchId }
}

/// Answer of `GET /user/follows`: `{follows: [{matchId, ...}]}`.
public struct FollowList: Codable, Sendable, Equatable {
    public var follows: [FollowRecord]
    public init(follows: [FollowRecord]) { self.follows = follows }
    /// The followed match ids.
    public var matchIds: Set<String> { Set(follows.map(\.matchId)) }
}

/// Answer of `GET /app/config`.
public struct AppConfig: Codable, Sendable, Equatable {
    /// The lowest app version allowed to run, e.g. "1.10.0".
    public var minimumVersion: String
    public var maintenance: Bool
    /// Shown on the maintenance screen.
    public var message: String?

    public init(minimumVersion: String, maintenance: Bool, message: String? = nil) {
        self.minimumVersion = minimumVersion
        self.maintenance = maintenance
        self.message = message
    }
}
