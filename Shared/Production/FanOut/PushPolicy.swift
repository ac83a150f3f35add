import Contracts

/// How long pushes live and how long activities stay, in seconds (la-coordinator configuration).
public struct PushPolicy: Sendable, Equatable {
    /// `apns-expiration` of a plain (priority 5) update, from when the job is made: a late score is
    /// worthless once a newer one exists, so this is short.
    public var updateExpiration: Int64
    /// `apns-expiration` of a priority-10 key event (the alert is still worth delivering a while later).
    public var keyEventExpiration: Int64
    /// `apns-expiration` of an end push (it must arrive, or the activity lingers until stale).
    public var endExpiration: Int64
    /// `stale-date` = event time + this (the app ends stale activities after 30 minutes).
    public var staleAfter: Int64
    /// `stale-date` of an update during a stoppage (lunch, tea, drinks, rain) = event time + this: no
    /// update comes until play resumes, and the activity must outlive the break.
    public var breakStaleAfter: Int64
    /// `dismissal-date` of the match's end push = event time + this.
    public var dismissAfter: Int64
    /// `dismissal-date` of a day's close-of-play end push = event time + this (iOS keeps an ended
    /// activity at most 4 hours).
    public var closeOfPlayDismissAfter: Int64

    public init(updateExpiration: Int64 = 120, keyEventExpiration: Int64 = 900, endExpiration: Int64 = 3600,
                staleAfter: Int64 = LiveActivityPayload.defaultStaleAfter,
                breakStaleAfter: Int64 = LiveActivityPayload.defaultBreakStaleAfter, dismissAfter: Int64 = 3600,
                closeOfPlayDismissAfter: Int64 = 14_400) {
        self.updateExpiration = updateExpiration
        self.keyEventExpiration = keyEventExpiration
        self.endExpiration = endExpiration
        self.staleAfter = staleAfter
        self.breakStaleAfter = breakStaleAfter
        self.dismissAfter = dismissAfter
        self.closeOfPlayDismissAfter = closeOfPlayDismissAfter
    }
}
