@testable import APNsSender
import APNs
import Contracts
import Foundation
import Kafka
import Runtime
import SharedTestSupport
import Synchronization
import Testing

/// An in-process APNs: answers each push by its token's script, one answer per attempt, and records
/// what it was sent. No socket, no TLS: the sender's logic alone (the real mock-apns tests stay the proof).
final class ScriptedTransport: APNsTransport {
    /// What the n-th attempt for a token gets (the last answer repeats).
    private let scripts: [String: [(status: Int, reason: APNsReason?)]]
    private let sent = LockedValue<[String: Int]>([:])

    init(_ scripts: [String: [(status: Int, reason: APNsReason?)]]) { self.scripts = scripts }

    func send(_ push: APNsPush) async -> APNsOutcome {
        let attempt = sent.withLock { counts -> Int in
            counts[push.device.token, default: 0] += 1
            return counts[push.device.token]!
        }
        let script = scripts[push.device.token] ?? [(200, nil)]
        let answer = script[min(attempt, script.count) - 1]
        let action: APNsAction = switch answer.status {
        case 200: .delivered
        case 410: .tokenInvalid
        case 429, 500, 503: .retry
        default: .permanentFailure
        }
        return APNsOutcome(device: push.device, action: action, status: answer.status, reason: answer.reason, apnsID: push.apnsID,
                           apnsTimestamp: answer.status == 410 ? 1_800_000_000_000 : nil, attempts: 1)
    }

    func shutdown() {}

    func attempts(_ token: String) -> Int { sent.withLock { $0[token] ?? 0 } }
}

@Suite struct ScriptedTransportTests {
    /// A job processor over `transport`, its results produced to fresh topics (the producer is returned to shut down).
    static func processor(_ transport: ScriptedTransport, clock: ManualWallClock, retry: APNsRetryPolicy) async throws
        -> (JobProcessor, KafkaProducer)
    {
        let admin = try await SenderFixtures.requireBroker()
        let (invalidTopic, deadTopic) = (SenderFixtures.unique("scripted-invalid"), SenderFixtures.unique("scripted-dead"))
        try await admin.createTopics([KafkaTopicSpec(name: invalidTopic, partitions: 1), KafkaTopicSpec(name: deadTopic, partitions: 1)],
                                     timeout: .seconds(10))
        let producer = try SenderFixtures.producer()
        let processor = JobProcessor(
            client: transport,
            publisher: ResultPublisher(producer: producer, tokenInvalidTopic: invalidTopic, deadTopic: deadTopic,
                                       logger: SenderFixtures.quietLogger),
            scheduler: RetryScheduler(policy: retry, clock: clock),
            metrics: SenderMetrics(registry: MetricsRegistry()), logger: SenderFixtures.quietLogger)
        return (processor, producer)
    }

    @Test("one job to four devices: delivered, unregistered, throttled then delivered, refused — each its own final answer")
    func everyTargetGetsItsFinalAnswer() async throws {
        let (ok, gone, busy, refused) = (SenderFixtures.token(), SenderFixtures.token(), SenderFixtures.token(), SenderFixtures.token())
        let transport = ScriptedTransport([
            gone: [(410, .unregistered)],
            busy: [(429, .tooManyRequests), (503, .serviceUnavailable), (200, nil)],
            refused: [(400, .badTopic)],
        ])
        let clock = ManualWallClock(Date())
        let (processor, producer) = try await Self.processor(
            transport, clock: clock, retry: APNsRetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
        let job = SenderFixtures.job(targets: [ok, gone, busy, refused].map { SenderFixtures.target($0) }, now: clock.now())
        let result = await processor.process(job)
        #expect(result == .finished(delivered: 2, tokenInvalid: 1, dead: 1))
        #expect(transport.attempts(ok) == 1 && transport.attempts(gone) == 1 && transport.attempts(refused) == 1)
        #expect(transport.attempts(busy) == 3, "retried after 429 and 503, delivered on the third attempt")
        try await producer.shutdown()
    }

    @Test("a job already past its expiration is not sent at all")
    func expiredJobSendsNothing() async throws {
        let transport = ScriptedTransport([:])
        let clock = ManualWallClock(Date())
        let (processor, producer) = try await Self.processor(transport, clock: clock, retry: APNsRetryPolicy())
        let token = SenderFixtures.token()
        let job = SenderFixtures.job(targets: [SenderFixtures.target(token)], now: clock.now().addingTimeInterval(-7200), expiresIn: 60)
        #expect(await processor.process(job) == .finished(delivered: 0, tokenInvalid: 0, dead: 1))
        #expect(transport.attempts(token) == 0)
        try await producer.shutdown()
    }
}
