import Foundation

/// Time rules of follows and starts (`FollowStore.follow`).
public struct FollowPolicy: Sendable {
    /// Follows live on this long after the match ends (seeds: 48 h).
    public var retentionAfterEnd: TimeInterval = 48 * 3600
    /// The end of a match is not known when it is followed: assume it ends at most this long after
    /// its start (5 days covers a Test match). The poller may shorten expires_at once the match ends.
    public var maximumMatchDuration: TimeInterval = 5 * 86_400
    /// A PENDING row whose last start is older than this gets a new start on a repeated follow.
    public var startResendAfter: TimeInterval = 60
    /// At most this many starts per (match, user, device) through repeated follows of a PENDING row.
    public var maximumStartAttempts: Int = 5

    public init() {}

    /// expires_at = max(startsAt (or now) + maximum duration, now) + retention.
    public func followExpiry(startsAt: Date?, now: Date) -> Date {
        max((startsAt ?? now).addingTimeInterval(maximumMatchDuration), now).addingTimeInterval(retentionAfterEnd)
    }
}
