import APNs
import Contracts

/// The final answer of every target of one job, gathered while the job is sent and written as one `PushOutcome`
/// (topic `push.outcomes`, the delivery record's input). Plain arrays indexed like `job.targets`: recording a round
/// costs a few stores per target.
struct OutcomeLedger {
    let job: PushJob
    private var tries: [Int]
    private var status: [Int?]
    private var reason: [String?]
    private var apnsId: [String?]
    private var at: [Int64?]
    private var result: [PushResult?]

    init(_ job: PushJob) {
        self.job = job
        let count = job.targets.count
        tries = Array(repeating: 0, count: count)
        status = Array(repeating: nil, count: count)
        reason = Array(repeating: nil, count: count)
        apnsId = Array(repeating: nil, count: count)
        at = Array(repeating: nil, count: count)
        result = Array(repeating: nil, count: count)
    }

    /// One round's answer for target `index`; `final` is the result when the answer is final (nil: it is retried).
    mutating func answered(_ index: Int, _ outcome: APNsOutcome, final: PushResult?, at now: Int64) {
        tries[index] += outcome.attempts
        status[index] = outcome.status
        reason[index] = outcome.reason?.rawValue ?? outcome.transportError
        apnsId[index] = outcome.apnsID
        at[index] = now
        if let final { result[index] = final }
    }

    /// A final answer an earlier sending of this job got (its progress marks): not sent again, counted as one try.
    mutating func known(_ index: Int, result final: PushResult, status code: Int, reason text: String?, apnsId id: String, at time: Int64?) {
        tries[index] = 1
        status[index] = code
        reason[index] = text
        apnsId[index] = id
        at[index] = time
        result[index] = final
    }

    /// Targets that end without a further answer (retries ran out, expired, superseded): `result`, and `why` as
    /// the reason of those never answered.
    mutating func finish(_ indices: [Int], as final: PushResult, why: String) {
        for index in indices {
            result[index] = final
            if status[index] == nil { reason[index] = why }
        }
    }

    /// The outcome message's bytes (`PushOutcomeEncoder`, written from the ledger's columns: no per-target result or
    /// masked-token String). Targets without a result (none once the job finished) are reported dead.
    func encoded(finishedAt: Int64, sendId: Int64) -> [UInt8] {
        let header = PushOutcome(job: job, contentTimestamp: LiveActivityPayload.timestamp(inEncoded: job.payload), finishedAt: finishedAt,
                                 results: [], sendId: sendId)
        var writer = PushOutcomeEncoder.Writer(header, rows: job.targets.count)
        for (index, target) in job.targets.enumerated() {
            writer.row(userId: target.userId, deviceId: target.deviceId, wholeToken: target.token, result: result[index] ?? .dead,
                       status: status[index], reason: reason[index], apnsId: apnsId[index], tries: tries[index], at: at[index])
        }
        return writer.finish()
    }

    /// The outcome of a broadcast job: one result for its channel.
    static func broadcast(_ job: PushJob, channel: PushChannel, result: PushResult, status: Int?, reason: String?, tries: Int,
                          at: Int64?, sendId: Int64) -> PushOutcome {
        PushOutcome(job: job, contentTimestamp: LiveActivityPayload.timestamp(inEncoded: job.payload), finishedAt: at ?? job.createdAt,
                    results: [PushTargetResult(userId: "", deviceId: "", token: TokenMask.mask(channel.channelId), result: result,
                                               status: status, reason: reason, apnsId: APNsID.derive(jobID: job.jobId, token: channel.channelId),
                                               tries: tries, at: at)], sendId: sendId)
    }
}
