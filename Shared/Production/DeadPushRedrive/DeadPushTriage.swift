import Contracts

/// What to do with one `push.dead` record when re-driving it (`DeadPushRedriver`).
///
/// Only pushes that ran out of attempts while APNs kept answering 429/5xx (or not at all), cause
/// `exhausted`, are worth sending again, and only while their `apns-expiration` has not passed: APNs itself
/// would drop an expired push. Permanent refusals (400/403/413, an invalid job) are a bug to fix first;
/// they are re-driven only when asked (`includePermanent`), after the fix is deployed. A rejected message
/// (no job) is never re-driven.
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
        /// A message that did not decode as a job: there is nothing to send.
        case rejected
    }

    /// Decides for `record` at `nowSeconds` (Unix seconds).
    public static func decide(_ record: DeadPush, nowSeconds: Int64, includePermanent: Bool = false) -> DeadPushTriage {
        guard var job = record.job, record.cause != .rejected else { return .skip(.rejected) }
        // A broadcast job has no targets: it is re-driven whole.
        guard !record.undelivered.isEmpty || job.channel != nil else { return .skip(.nothingUndelivered) }
        if job.expiration == 0 || nowSeconds >= job.expiration || record.cause == .expired { return .skip(.expired) }
        guard record.cause == .exhausted || includePermanent else { return .skip(.permanent) }
        if job.channel == nil { job.targets = record.undelivered }
        job.attempt += 1
        return .redrive(job)
    }
}
