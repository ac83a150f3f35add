import APNs
import Foundation
import Runtime

/// The sender's one retry policy for pushes answered 429/500/503 or lost with the connection.
///
/// The APNs client is configured for a single attempt (plus its one JWT regeneration on
/// ExpiredProviderToken), so this is the only place retries are decided: after attempt `n` the
/// still-unanswered targets of a job wait `policy.delay(afterAttempt: n)` (exponential, capped,
/// jittered 50–100 %) and are sent again — unless that would reach the job's `expiration`
/// (`apns-expiration`, Unix seconds; 0 means "no later than now": no retry) or `n` reached the
/// attempt limit: `policy.maxAttempts` for priority-5 updates (a newer update carries the whole
/// state, so a lost one costs nothing once the next arrives), `keyPushAttemptCeiling` for
/// priority-10 pushes — a key event's alert or a match's end — which are retried until their
/// expiration (900 s / 3,600 s): a dead one is a lost alert or an activity left on a stale score,
/// and `push.dead` is only re-driven by hand (`sightscreen redrive-dead`).
struct RetryScheduler: Sendable {
    /// Attempts of a priority-10 push: a bound should an expiration be absurdly far (about 80
    /// minutes at the 5 s back-off cap); normally the expiration stops the retries first.
    static let keyPushAttemptCeiling = 1_000

    /// Why a job's remaining targets go to `push.dead`.
    enum GiveUp: Sendable, Equatable, CustomStringConvertible {
        case expired
        case exhausted(attempts: Int)

        var description: String {
            switch self {
            case .expired: "expired"
            case .exhausted(let attempts): "retries exhausted after \(attempts) attempts"
            }
        }
    }

    enum Decision: Sendable, Equatable {
        case retry(after: Duration)
        case giveUp(GiveUp)
    }

    let policy: APNsRetryPolicy
    let clock: any WallClock

    /// True when a job with this `apns-expiration` must not be sent any more. 0 is APNs' "deliver
    /// now or never": sendable once, never retried.
    func isExpired(_ expiration: Int64) -> Bool {
        expiration > 0 && clock.now().timeIntervalSince1970 >= Double(expiration)
    }

    /// What to do with targets that still need an answer after attempt `attempt` (≥ 1) of a push
    /// with APNs priority `priority` (10: key event or end; 5: plain update).
    func decide(afterAttempt attempt: Int, expiration: Int64, priority: Int = 5) -> Decision {
        let limit = priority >= 10 ? max(policy.maxAttempts, Self.keyPushAttemptCeiling) : policy.maxAttempts
        guard attempt < limit else { return .giveUp(.exhausted(attempts: attempt)) }
        guard expiration > 0 else { return .giveUp(.expired) }
        let delay = policy.delay(afterAttempt: attempt)
        let retryAt = clock.now().timeIntervalSince1970 + delay.seconds
        guard retryAt < Double(expiration) else { return .giveUp(.expired) }
        return .retry(after: delay)
    }
}
