import Contracts

/// What to do with one `push.dead` record when re-driving it (`DeadPushRedriver`).
///
/// Only pushes that ran out of attempts while APNs kept answering 429/5xx (or not at all) are
/// worth sending again, and only while their `apns-expiration` has not passed: APNs itself would
/// drop an expired push. Permanent refusals (400/403/413, an invalid job) are a bug to fix first;
/// they are re-driven only when asked (`includePermanent`), after the fix is deployed.
public enum DeadPushTriage: Sendable, Equatable {
    /// Send again: the undelivered targets as a new attempt of the same job (same jobId, so the
    /// same apns-ids).
    case redrive(PushJob)
    /// Leave it: why.
    case skip(Reason)

    public enum Reason: String, Sendable, Equatable, CaseIterable {
        /// Its `apns-expiration` has passed (0: "now or never").
        case expired
        /// Refused for good by APNs or by the sender; not re-driven without `includePermanent`.
        case permanent
        /// No undelivered target is listed.
        case nothingUndelivered = "nothing_undelivered"
    }

    /// The `lastError` prefix of pushes whose retries ran out (`RetryScheduler.GiveUp.exhausted`).
    static let exhaustedPrefix = "retries exhausted"

    /// Decides for `record` at `nowSeconds` (Unix seconds).
    public static func decide(_ record: DeadPush, nowSeconds: Int64, includePermanent: Bool = false) -> DeadPushTriage {
        guard !record.undelivered.isEmpty else { return .skip(.nothingUndelivered) }
        let expiration = record.job.expiration
        if expiration == 0 || nowSeconds >= expiration { return .skip(.expired) }
        guard record.lastError.hasPrefix(exhaustedPrefix) || includePermanent else { return .skip(.permanent) }
        var job = record.job
        job.targets = record.undelivered
        job.attempt = record.job.attempt + 1
        return .redrive(job)
    }
}
