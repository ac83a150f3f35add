import Contracts
import LiveActivities

extension PushTarget {
    /// The fan-out target of an ACTIVE activity (an environment other than "sandbox" is production).
    public init(_ activity: ActiveActivity) {
        self.init(token: activity.updateToken, env: activity.apnsEnvironment == "sandbox" ? .sandbox : .production,
                  userId: activity.userId, deviceId: activity.deviceId)
    }
}
