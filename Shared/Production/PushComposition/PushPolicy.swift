import Contracts
import Runtime

/// How long each kind of push lives (`apns-expiration`) and how long activities stay, in seconds: one
/// decision per kind, read from the environment in one place (`init(_:)`), used by every service that
/// composes pushes (la-coordinator, the api). docs/PUSHES.md lists every push with its values and reasons.
public struct PushPolicy: Sendable, Equatable {
    /// `apns-expiration` of a plain (priority 5) update, from when the job is made: a late score is
    /// worthless once a newer one exists, so this is short. `PUSH_EXPIRATION_SECONDS`.
    public var updateExpiration: Int64
    /// `apns-expiration` of a priority-10 key event (the alert is still worth delivering a while later).
    /// `KEY_PUSH_EXPIRATION_SECONDS`.
    public var keyEventExpiration: Int64
    /// `apns-expiration` of every push that ends an activity (the match's or a day's end, an unfollow, a
    /// dismissal, the old activity of a rollover) and of the background end of a channel activity: an end must
    /// arrive, or the activity lingers on the Lock Screen until it goes stale. `END_PUSH_EXPIRATION_SECONDS`.
    public var endExpiration: Int64
    /// `apns-expiration` of a push-to-start. A start that arrives late still starts the activity on the state it
    /// carries, and the next update corrects it; a start older than this is replaced anyway (the orchestrator and
    /// a repeated follow send a new attempt for a row still PENDING). `PUSH_START_TTL_MS` (milliseconds, kept for
    /// compatibility; whole seconds are used).
    public var startExpiration: Int64
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
                startExpiration: Int64 = 300,
                staleAfter: Int64 = LiveActivityPayload.defaultStaleAfter,
                breakStaleAfter: Int64 = LiveActivityPayload.defaultBreakStaleAfter, dismissAfter: Int64 = 3600,
                closeOfPlayDismissAfter: Int64 = 14_400) {
        self.updateExpiration = updateExpiration
        self.keyEventExpiration = keyEventExpiration
        self.endExpiration = endExpiration
        self.startExpiration = startExpiration
        self.staleAfter = staleAfter
        self.breakStaleAfter = breakStaleAfter
        self.dismissAfter = dismissAfter
        self.closeOfPlayDismissAfter = closeOfPlayDismissAfter
    }

    /// Reads the policy's variables (defaults above); errors name the variable.
    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        self.init()
        func seconds(_ name: String, _ value: Int64, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int64 {
            Int64(try environment.int(name, default: Int(value), in: range))
        }
        updateExpiration = try seconds("PUSH_EXPIRATION_SECONDS", updateExpiration, 1...86_400)
        keyEventExpiration = try seconds("KEY_PUSH_EXPIRATION_SECONDS", keyEventExpiration, 1...86_400)
        endExpiration = try seconds("END_PUSH_EXPIRATION_SECONDS", endExpiration, 1...86_400)
        startExpiration = Int64(try environment.milliseconds("PUSH_START_TTL_MS", default: .seconds(startExpiration),
                                                             in: 1000...86_400_000).seconds)
        staleAfter = try seconds("STALE_AFTER_SECONDS", staleAfter, 60...86_400)
        dismissAfter = try seconds("DISMISS_AFTER_SECONDS", dismissAfter, 0...14_400)
        breakStaleAfter = try seconds("BREAK_STALE_AFTER_SECONDS", breakStaleAfter, 60...86_400)
        closeOfPlayDismissAfter = try seconds("CLOSE_OF_PLAY_DISMISS_AFTER_SECONDS", closeOfPlayDismissAfter, 0...14_400)
    }
}
