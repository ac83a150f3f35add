import Foundation
import Contracts
import Kafka
import Runtime

/// Produces a job's follow-up records (`TokenInvalid`, `DeadPush`, rejected jobs) and waits for
/// the broker's acknowledgement of every one, so the job's offset is committed only after them.
struct ResultPublisher: Sendable {
    let producer: KafkaProducer
    let tokenInvalidTopic: String
    let deadTopic: String
    /// `push.outcomes`: what became of each job, for the delivery record.
    var outcomesTopic = Topic.pushOutcomes.name
    let logger: Logger
    /// Rounds of re-producing failed records before giving up (each round waits for librdkafka's
    /// own retries, bounded by the producer's message timeout).
    var maxRounds = 10
    var pause: Duration = .seconds(1)

    /// A `TokenInvalid`, keyed matchId.
    func tokenInvalid(_ message: TokenInvalid) throws -> KafkaOutgoingMessage {
        KafkaOutgoingMessage(topic: tokenInvalidTopic, key: message.matchId.map { Array($0.utf8) }, value: try MessageCodec.encode(message))
    }

    /// A `DeadPush`, keyed jobId.
    func dead(_ message: DeadPush) throws -> KafkaOutgoingMessage {
        KafkaOutgoingMessage(topic: deadTopic, key: Array(message.jobId.utf8), value: try MessageCodec.encode(message))
    }

    /// A `PushOutcome`, keyed like its job (`key`: the job's Kafka key, "matchId:shard" or a broadcast's "matchId:bc:env",
    /// so one device's outcomes stay in order on one partition; the match id when unknown), written by the hand-written
    /// encoder (a 1,000-target outcome is about 200 kB, under the topic's bound).
    func outcome(_ outcome: PushOutcome, key: String) -> KafkaOutgoingMessage {
        self.outcome(PushOutcomeEncoder.encode(outcome), matchId: outcome.matchId, channel: outcome.channel, key: key)
    }

    /// An outcome already encoded (`OutcomeLedger.encoded`) of `job`, keyed as above.
    func outcome(_ encoded: [UInt8], of job: PushJob, key: String) -> KafkaOutgoingMessage {
        outcome(encoded, matchId: job.matchId, channel: job.channel, key: key)
    }

    private func outcome(_ encoded: [UInt8], matchId: String, channel: PushChannel?, key: String) -> KafkaOutgoingMessage {
        let key = key.isEmpty ? channel.map { PushJob.broadcastKey(matchId: matchId, environment: $0.env) } ?? matchId : key
        return KafkaOutgoingMessage(topic: outcomesTopic, key: Array(key.utf8), value: encoded)
    }

    /// Produces every message until all are acknowledged. Returns false when the task was
    /// cancelled or the rounds ran out (the caller then leaves the offset uncommitted).
    func publish(_ messages: [KafkaOutgoingMessage]) async -> Bool {
        var remaining = messages
        var round = 0
        while !remaining.isEmpty {
            round += 1
            let results = await producer.sendAll(remaining)
            var failed: [KafkaOutgoingMessage] = []
            var lastError: KafkaError?
            for (message, result) in zip(remaining, results) {
                if case .failure(let error) = result {
                    failed.append(message)
                    lastError = error
                }
            }
            remaining = failed
            guard let lastError else { break }
            logger.warning("producing job results failed; retrying", [
                "failed": String(failed.count), "round": String(round), "error": lastError.description,
            ])
            guard round < maxRounds, !Task.isCancelled else { return false }
            do { try await Task.sleep(for: pause) } catch { return false }
        }
        return true
    }
}

extension JSONEncoder {
    /// Sorted keys, unescaped slashes: the same shape as `MessageCodec`.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
