/// The `status` of a `live_activities` row: PENDING (a push-to-start sent, no update token yet), ACTIVE (the
/// app posted the activity's update token), ENDED (with a `LiveActivityEndReason`).
public enum LiveActivityStatus: String, Sendable, Hashable, CaseIterable {
    case pending
    case active
    case ended
}

/// Why a `live_activities` row is ENDED (the table's CHECK constraint lists exactly these).
public enum LiveActivityEndReason: String, Sendable, Hashable, CaseIterable {
    /// The match ended (its end push was acknowledged).
    case matchEnd = "match_end"
    /// The user unfollowed the match.
    case userUnfollow = "user_unfollow"
    /// The user dismissed the activity on the device.
    case userDismissed = "user_dismissed"
    /// APNs answered that the row's token is no longer valid; the orchestrator may start it again.
    case tokenInvalid = "token_invalid"
    /// The day of play closed (stumps); the orchestrator starts it again when play resumes.
    case dayEnd = "day_end"
}

/// How a `live_activities` row gets its updates (`delivery`, migration 10): per-token pushes to its update token, or
/// its match's broadcasts on a channel (no update token).
public enum LiveActivityDeliveryMode: String, Sendable, Hashable, CaseIterable {
    case token
    case channel
}
