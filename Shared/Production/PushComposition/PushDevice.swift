import Contracts

/// One device of one match a single-device push goes to: the token it is sent to (a push-to-start token for a
/// start, the activity's update token for an end, the device's own push token for a background push).
public struct PushDevice: Sendable, Equatable {
    public var matchId: String
    public var userId: String
    public var deviceId: String
    public var token: String
    public var env: APNsEnvironment

    public init(matchId: String, userId: String, deviceId: String, token: String, env: APNsEnvironment) {
        self.matchId = matchId
        self.userId = userId
        self.deviceId = deviceId
        self.token = token
        self.env = env
    }

    /// The job's one target.
    var target: PushTarget { PushTarget(token: token, env: env, userId: userId, deviceId: deviceId) }
}
