import Contracts

/// Request and response bodies of the api (JSON, camelCase). Unknown request fields are ignored;
/// wrong types are refused by `Decodable` (400 `invalid_body`).
enum APIBodies {
    struct FollowRequest: Decodable { var matchId: String; var deviceId: String? }
    /// `deviceId`: the device unfollowing (it ended its own activity; the user's other channel devices get a
    /// background end push).
    struct UnfollowRequest: Decodable { var matchId: String; var deviceId: String? }
    struct MatchActionRequest: Decodable { var deviceId: String? }
    /// An activity the app runs: an update token (token delivery) or the broadcast channel it subscribed to
    /// (channel delivery, iOS 18+); exactly one of the two.
    struct ActivityTokenRequest: Decodable { var token: String?; var channelId: String?; var deviceId: String }
    struct DismissRequest: Decodable { var deviceId: String }
    struct DeviceRequest: Decodable {
        var deviceId: String
        var pushToken: String?
        var pushToStartToken: String?
        var apnsEnvironment: APNsEnvironment
        var appVersion: String
        /// The device's iOS version ("18.2"); optional (older builds do not send it).
        var osVersion: String?
        /// True when this app build subscribes Live Activities to broadcast channels; optional (absent: false).
        var supportsBroadcastChannels: Bool?
    }

    struct FollowResponse: Encodable {
        var matchId: String
        var following: Bool
        var isLive: Bool
        /// ISO 8601.
        var expiresAt: String
        /// Devices to which this call sent a push-to-start job.
        var startedDevices: [String]
        /// The cached display state when the match is live (null otherwise or when none is cached yet).
        var displayState: UnifiedDisplayState?
        /// The match's broadcast channel for the calling device (`deviceId` of the request) when it is
        /// channel-capable: an in-app start uses `.channel(channelId)`. Null: start with a token.
        var channelId: String? = nil
    }

    struct UnfollowResponse: Encodable {
        var matchId: String
        var following: Bool
        /// Devices whose activity was ended (an end push was sent to those with an update token).
        var endedDevices: [String]
    }

    struct FollowEntry: Encodable {
        var matchId: String
        var createdAt: String
        var expiresAt: String?
    }

    struct FollowsResponse: Encodable { var follows: [FollowEntry] }

    struct ActivityTokenResponse: Encodable {
        var matchId: String
        var deviceId: String
        var status: String
        /// True when an active activity's update token was replaced.
        var rotated: Bool
    }

    struct DeviceResponse: Encodable {
        var deviceId: String
        var hasPushToken: Bool
        var hasPushToStartToken: Bool
        var apnsEnvironment: APNsEnvironment
        var appVersion: String?
        var updatedAt: String
        var osVersion: String? = nil
        /// iOS 18 or later and a build that subscribes to channels: started on broadcast channels.
        var channelCapable: Bool = false
    }

    struct DeleteDeviceResponse: Encodable { var deviceId: String; var deleted: Bool }

    struct ScheduleResponse: Encodable { var date: String; var matches: [MatchCard] }

    struct LiveResponse: Encodable {
        var matches: [UnifiedDisplayState]
        /// How long the client should wait before polling again.
        var retryAfterMs: Int
    }

    struct MatchResponse: Encodable {
        var matchId: String
        var isLive: Bool
        var following: Bool
        var card: MatchCard?
        var displayState: UnifiedDisplayState?
    }

    struct AppConfigResponse: Encodable {
        var minVersion: String
        var maintenance: Bool
        var message: String
    }
}
