/// What the lifecycle manager tells its owner (the facade), which routes it to the other managers.
public enum LifecycleEvent: Sendable {
    /// An activity is now tracked: its update tokens should be observed.
    case started(any LiveActivityHandle, origin: ActivityOrigin)
    /// A tracked activity ended (or was replaced): stop observing its tokens.
    case ended(matchId: String, activityId: String, reason: ActivityEndReason)
    /// The user swiped an active activity away; the backend was told (it unfollows).
    case dismissedByUser(matchId: String, activityId: String)
    /// `Activity.request` failed for `matchId`.
    case startFailed(matchId: String)
}

/// What `LifecycleManager.apply` did with a push.
public enum PushApplyResult: Sendable, Equatable {
    /// The content was shown.
    case applied
    /// Older than the last applied content (ActivityKit drops it).
    case ignoredOlder(lastApplied: Int64)
    /// The activity was ended.
    case ended
    /// No tracked activity for the push's match (or a `start` event, which the system handles).
    case notTracked
}

/// Why a local Live Activity start failed.
public enum LiveActivityStartError: Error, Sendable, Equatable {
    /// Live Activities are disabled on the device.
    case disabled(matchId: String)
    /// `Activity.request` threw.
    case requestFailed(matchId: String, reason: String)
}

/// A tracked activity, for display.
public struct TrackedActivity: Sendable, Equatable {
    public var matchId: String
    public var activityId: String
    public var origin: ActivityOrigin
    /// Timestamp of the last applied content.
    public var lastAppliedTimestamp: Int64

    public init(matchId: String, activityId: String, origin: ActivityOrigin, lastAppliedTimestamp: Int64) {
        self.matchId = matchId
        self.activityId = activityId
        self.origin = origin
        self.lastAppliedTimestamp = lastAppliedTimestamp
    }
}
