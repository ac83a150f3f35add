import APNs
import Contracts
import Kafka

/// One job message's place in the progress marks: where its answers are marked while it is sent, and what marks
/// read back after a crash already said of it (`known`).
struct JobProgress: Sendable {
    let marks: ProgressMarks
    /// The job's message on the jobs topic (partition, offset and timestamp name it in a mark).
    let message: KafkaMessage
    /// Answers an earlier sending got, from its marks.
    var known: ProgressIndex.Entry?

    /// Marks the final answers among `answers` (target index, outcome): accepted, or refused for the token.
    func mark(_ job: PushJob, answers: [(Int, APNsOutcome)]) {
        var accepted: [Int] = []
        var refused: [PushProgress.Refusal] = []
        for (index, outcome) in answers {
            switch outcome.action {
            case .delivered:
                accepted.append(index)
            case .tokenInvalid:
                let status = outcome.status ?? 0
                refused.append(PushProgress.Refusal(index: index, status: status, reason: outcome.reason?.rawValue ?? "HTTP \(status)",
                                                    apnsTimestamp: outcome.apnsTimestamp))
            default:
                continue
            }
        }
        accepted.sort()
        marks.answered(message, job: job, accepted: accepted, refused: refused)
    }
}
