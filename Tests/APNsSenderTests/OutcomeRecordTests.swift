@testable import APNsSender
import APNs
import Contracts
import Foundation
import Kafka
import Runtime
import SharedTestSupport
import Testing

/// Each job's outcome on `push.outcomes`, produced with the job's other results: every target's final answer (accepted,
/// refused, dead after retries, superseded), its status, reason, apns-id and tries; tokens only masked.
@Suite struct OutcomeRecordTests {
    /// The outcomes on `topic`, read from the start until `count` arrived.
    static func read(_ topic: String, count: Int) async throws -> [PushOutcome] {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: SenderFixtures.brokers, clientId: SenderFixtures.unique("outcomes"),
                                                       groupId: SenderFixtures.unique("outcomes"), topics: [topic])
        configuration.autoOffsetReset = .earliest
        configuration.sessionTimeout = .milliseconds(6000)
        configuration.heartbeatInterval = .milliseconds(500)
        let consumer = try KafkaConsumer(configuration: configuration, logger: SenderFixtures.quietLogger)
        defer { Task { try? await consumer.close() } }
        var outcomes: [PushOutcome] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while outcomes.count < count, ContinuousClock.now < deadline {
            if let message = try await consumer.poll(timeout: .milliseconds(200)) {
                outcomes.append(try MessageCodec.decode(PushOutcome.self, from: message.value))
            }
        }
        return outcomes
    }

    @Test("a job's outcome: accepted, refused (410), dead after retries, with statuses, tries, masked tokens; a broadcast's too")
    func outcomeOfAJob() async throws {
        let (ok, gone, busy) = (SenderFixtures.token(), SenderFixtures.token(), SenderFixtures.token())
        let clock = ManualWallClock(Date())
        let transport = ScriptedTransport([gone: [(410, .unregistered)], busy: [(503, .serviceUnavailable)]])
        let topic = SenderFixtures.unique("outcomes")
        let (processor, producer) = try await ScriptedTransportTests.processor(
            transport, clock: clock, retry: APNsRetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2)), outcomesTopic: topic)
        defer { Task { try? await producer.shutdown(timeout: .seconds(5)) } }
        var job = SenderFixtures.job(targets: [ok, gone, busy].map { SenderFixtures.target($0) }, now: clock.now())
        job.trimStep = 1
        #expect(await processor.process(job, key: "m1:3") == .finished(delivered: 1, tokenInvalid: 1, dead: 1))
        let broadcast = ScriptedTransportTests.broadcastJob(channel: "Q0hBTk5FTC0x", seq: 2, priority: 5, now: clock.now())
        #expect(await processor.process(broadcast) == .finished(delivered: 1, tokenInvalid: 0, dead: 0))

        let outcomes = try await Self.read(topic, count: 2)
        #expect(outcomes.count == 2)
        let outcome = try #require(outcomes.first { $0.jobId == job.jobId })
        #expect(outcome.trimStep == 1 && outcome.contentTimestamp == LiveActivityPayload.timestamp(inEncoded: job.payload))
        #expect(outcome.results.map(\.result) == [.accepted, .refused, .dead])
        #expect(outcome.results.map(\.status) == [200, 410, 503])
        #expect(outcome.results.map(\.reason) == [nil, "Unregistered", "ServiceUnavailable"])
        #expect(outcome.results.map(\.tries) == [1, 1, 2])
        #expect(outcome.results.map(\.token) == [ok, gone, busy].map(TokenMask.mask))
        #expect(outcome.results.map(\.apnsId) == [ok, gone, busy].map { APNsID.derive(jobID: job.jobId, token: $0) })
        let channel = try #require(outcomes.first { $0.channel != nil })
        #expect(channel.results.map(\.result) == [.accepted] && channel.results[0].token == TokenMask.mask("Q0hBTk5FTC0x"))
        #expect(outcome.sendId != nil && channel.sendId != nil && outcome.sendId != channel.sendId, "each sending has its own id")
        let ids = OutcomeSendIDs(prefix: 3)
        #expect([ids.next(), ids.next()] == [3 << 32 | 1, 3 << 32 | 2] && OutcomeSendIDs(prefix: 4).next() != ids.next())
    }
}
