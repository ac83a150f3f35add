@testable import APNsSender
import APNs
import Contracts
import Foundation
import Kafka
import Runtime
import SharedTestSupport
import Testing

/// Overload at apns-sender: priority 10 first, each device's states in order, superseded updates not sent.
@Suite struct SendOrderTests {
    static func job(seq: Int64, priority: Int = 5, kind: PushKind = .liveActivityUpdate, targets: [PushTarget] = [SenderFixtures.target()]) -> PushJob {
        var job = SenderFixtures.job(targets: targets, kind: kind)
        job.stateSeq = seq
        job.priority = priority
        return job
    }

    static func entry(_ job: PushJob, key: String, offset: Int64 = 0) -> JobLookahead.Entry {
        let message = KafkaMessage(topic: "push.jobs", partition: 0, offset: offset, key: Array(key.utf8), value: [], headers: [],
                                   timestamp: nil)
        return JobLookahead.Entry(message: message, incoming: .job(job), key: key)
    }

    @Test("a key event read after plain updates starts first; a key's newer state waits while an older one is in a round")
    func priorityTenFirstAndOrderPerKey() {
        let order = SendOrder()
        var lookahead = JobLookahead(capacity: 8)
        let plain = Self.job(seq: 4)
        let other = Self.job(seq: 9)
        let key = Self.job(seq: 6, priority: 10)
        lookahead.append(Self.entry(plain, key: "m1:3", offset: 1))
        lookahead.append(Self.entry(other, key: "m2:0", offset: 2))
        lookahead.append(Self.entry(key, key: "m1:3", offset: 3))
        #expect(lookahead.countsByPriority == [10: 1, 5: 2, 1: 0])
        #expect(lookahead.takeNext(order: order)?.entry.job?.stateSeq == 6, "the key event overtakes the plain updates")
        #expect(order.beginRound(key, key: "m1:3"))
        // The plain update of the same key (older) is next in line and may start: its round is then refused.
        let next = lookahead.takeNext(order: order)
        #expect(next?.entry.job?.stateSeq == 4 && next?.superseded == false)
        #expect(!order.beginRound(plain, key: "m1:3"), "seq 4 after seq 6 began: superseded")
        order.endRound(key, key: "m1:3")

        // A newer state of a key waits while an older one is in a round; other keys do not.
        let older = Self.job(seq: 10)
        let newer = Self.job(seq: 11, priority: 10)
        #expect(order.beginRound(older, key: "m1:5"))
        lookahead.append(Self.entry(newer, key: "m1:5", offset: 4))
        #expect(lookahead.takeNext(order: order)?.entry.job?.stateSeq == 9, "m1:5's seq 11 waits; m2's job goes")
        #expect(lookahead.takeNext(order: order) == nil)
        order.endRound(older, key: "m1:5")
        #expect(lookahead.takeNext(order: order)?.entry.job?.stateSeq == 11)
        #expect(lookahead.isEmpty)
    }

    @Test("a plain update with a newer state of its key already read is taken out superseded; after an assignment nothing starts until the intake caught up")
    func supersededInTheLookaheadAndSettling() {
        let order = SendOrder()
        var lookahead = JobLookahead(capacity: 8)
        lookahead.append(Self.entry(Self.job(seq: 3), key: "m1:4", offset: 1))
        lookahead.append(Self.entry(Self.job(seq: 3), key: "m1:9", offset: 2))
        lookahead.append(Self.entry(Self.job(seq: 5), key: "m1:4", offset: 3))
        let now = ContinuousClock.now
        lookahead.settle(until: now + .seconds(1))
        #expect(lookahead.takeNext(order: order, now: now) == nil, "settling")
        lookahead.settled()
        let first = lookahead.takeNext(order: order, now: now)
        #expect(first?.entry.job?.stateSeq == 3 && first?.entry.key == "m1:4" && first?.superseded == true)
        let second = lookahead.takeNext(order: order, now: now)
        #expect(second?.entry.key == "m1:9" && second?.superseded == false, "another key's seq 3 is nobody's older state")
        #expect(lookahead.takeNext(order: order, now: now)?.superseded == false)
        lookahead.append(Self.entry(Self.job(seq: 6), key: "m1:4", offset: 4))
        lookahead.settle(until: now + .seconds(1))
        #expect(lookahead.takeNext(order: order, now: now + .seconds(2))?.entry.job?.stateSeq == 6, "the deadline passed")
    }

    @Test("an end is never superseded; the same state's other chunks run side by side; revoked partitions leave the lookahead")
    func endsChunksAndRevocation() {
        let order = SendOrder()
        #expect(order.beginRound(Self.job(seq: 8, priority: 10), key: "m1:1"))
        let end = Self.job(seq: 7, priority: 10, kind: .liveActivityEnd)
        #expect(order.beginRound(end, key: "m1:1"), "an end goes whatever began")
        #expect(!order.beginRound(Self.job(seq: 7, priority: 10), key: "m1:1"), "an older key event's update is superseded too")
        #expect(!order.mayStart(Self.job(seq: 8), key: "m1:1"), "seq 7's end is in a round")
        order.endRound(end, key: "m1:1")
        #expect(order.mayStart(Self.job(seq: 8), key: "m1:1"), "chunks of the state in a round may start")
        #expect(order.beginRound(Self.job(seq: 8), key: "m1:1"))
        #expect(order.mayStart(Self.job(seq: 1, kind: .liveActivityStart), key: "m1:1"), "starts are not ordered")

        var lookahead = JobLookahead(capacity: 2)
        lookahead.append(Self.entry(Self.job(seq: 1), key: "a", offset: 1))
        lookahead.append(JobLookahead.Entry(
            message: KafkaMessage(topic: "push.jobs", partition: 5, offset: 2, key: nil, value: [], headers: [], timestamp: nil),
            incoming: .poison(kind: "malformed_json", error: "x", jobId: nil), key: ""))
        #expect(!lookahead.hasRoom)
        #expect(lookahead.revoke([KafkaTopicPartition(topic: "push.jobs", partition: 0)]) == 1)
        #expect(lookahead.entries.count == 1 && lookahead.hasRoom)
    }

    @Test("a plain update throttled for one device is not sent to it again once a newer state of its key began: superseded, counted")
    func retryAfterANewerStateIsSuperseded() async throws {
        let token = SenderFixtures.token()
        let transport = ScriptedTransport([token: [(429, .tooManyRequests), (200, nil)]])
        let clock = ManualWallClock(Date())
        let registry = MetricsRegistry()
        let (processor, producer) = try await ScriptedTransportTests.processor(
            transport, clock: clock, retry: APNsRetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(400), maxDelay: .milliseconds(400)),
            registry: registry)
        let order = SendOrder()
        let old = Self.job(seq: 1, targets: [SenderFixtures.target(token)])
        let running = Task { await processor.process(old, key: "m1:2", order: order) }
        try await eventually("the first attempt", within: .seconds(30), every: .milliseconds(50)) { transport.attempts(token) == 1 }
        // A newer state of the same key begins while the old job waits out its back-off.
        let newer = Self.job(seq: 2, targets: [SenderFixtures.target(token)])
        try await eventually("the old round to end", within: .seconds(30), every: .milliseconds(50)) { order.mayStart(newer, key: "m1:2") }
        #expect(order.beginRound(newer, key: "m1:2"))
        order.endRound(newer, key: "m1:2")
        #expect(await running.value == .finished(delivered: 0, tokenInvalid: 0, dead: 0))
        #expect(transport.attempts(token) == 1, "no retry of the older state")
        let text = registry.render()
        #expect(text.contains(#"apns_sender_superseded_total{priority="5"} 1"#))
        #expect(text.contains(#"apns_sender_targets_total{action="superseded"} 1"#))
        try await producer.shutdown()
    }

    @Test("after an end push of a device's activity began, no update of its key goes to that token; once accepted, no other end either; a dead end releases it; an end waits for update rounds of its key, not for its own chunks")
    func nothingAfterAnEnd() {
        let order = SendOrder()
        let (ended, other) = (SenderFixtures.target(), SenderFixtures.target())
        // The api ends one device with the state it knows (5); la-coordinator read the row as active for state 6.
        let end = Self.job(seq: 5, priority: 10, kind: .liveActivityEnd, targets: [ended])
        let update = Self.job(seq: 6, priority: 10, targets: [ended, other])
        #expect(order.beginRound(end, key: "m1:3", targets: [0]) == .begun(skipping: []))
        #expect(order.endedCount == 1)
        #expect(order.beginRound(update, key: "m1:3", targets: [0, 1]) == .begun(skipping: [0]), "skipped while the end is still unanswered")
        #expect(!order.mayStart(Self.job(seq: 7, priority: 10, kind: .liveActivityEnd, targets: [other]), key: "m1:3"),
                "an end waits while a newer update of its key is in a round")
        order.endRound(update, key: "m1:3")
        #expect(order.beginRound(update, key: "m1:3", targets: [0]) == .allEnded, "a retry round to the ended device alone: no round")
        order.endRound(end, key: "m1:3", accepted: [0])
        // Another end of the same activity (say the match's) skips it once the first was accepted; the first end's own
        // retry round does not.
        let matchEnd = Self.job(seq: 7, priority: 10, kind: .liveActivityEnd, targets: [other, ended])
        #expect(order.mayStart(matchEnd, key: "m1:3"))
        #expect(order.beginRound(matchEnd, key: "m1:3", targets: [0, 1]) == .begun(skipping: [1]))
        var otherChunk = matchEnd
        otherChunk.targets = [SenderFixtures.target()]
        #expect(order.mayStart(otherChunk, key: "m1:3"), "the chunks of one end run side by side")
        order.endRound(matchEnd, key: "m1:3", accepted: [0])
        #expect(order.beginRound(end, key: "m1:3", targets: [0]) == .begun(skipping: []))
        order.endRound(end, key: "m1:3")
        // An end that went dead releases its token: updates and a later end reach the activity again.
        let lost = SenderFixtures.target()
        let deadEnd = Self.job(seq: 8, priority: 10, kind: .liveActivityEnd, targets: [lost])
        #expect(order.beginRound(deadEnd, key: "m1:3", targets: [0]) == .begun(skipping: []))
        order.endRound(deadEnd, key: "m1:3")
        order.releaseEnded(deadEnd, key: "m1:3", tokens: [lost.token])
        let later = Self.job(seq: 9, priority: 10, targets: [lost])
        #expect(order.beginRound(later, key: "m1:3", targets: [0]) == .begun(skipping: []))
        order.endRound(later, key: "m1:3")
        // Other keys are not touched.
        #expect(order.beginRound(update, key: "m1:4", targets: [0, 1]) == .begun(skipping: []))
    }

    @Test("an update throttled for one device is not retried to it after that device's end push went: skipped as after_end, counted")
    func retryAfterAnEndIsSkipped() async throws {
        let (ended, other) = (SenderFixtures.token(), SenderFixtures.token())
        // The ended device's first answer (the update) is 429; the end push and anything later would be 200.
        let transport = ScriptedTransport([ended: [(429, .tooManyRequests), (200, nil)]])
        let clock = ManualWallClock(Date())
        let registry = MetricsRegistry()
        let (processor, producer) = try await ScriptedTransportTests.processor(
            // A back-off long enough for the end to run in it on a slow machine (the retry is what is checked).
            transport, clock: clock, retry: APNsRetryPolicy(maxAttempts: 5, baseDelay: .seconds(3), maxDelay: .seconds(3)),
            registry: registry)
        let order = SendOrder()
        let update = Self.job(seq: 6, targets: [SenderFixtures.target(ended), SenderFixtures.target(other)])
        let running = Task { await processor.process(update, key: "m1:2", order: order) }
        try await eventually("the first round", within: .seconds(30), every: .milliseconds(50)) {
            transport.attempts(ended) == 1 && transport.attempts(other) == 1
        }
        // The api's end of that device (an older state: it knew 5) goes while the update waits out its back-off.
        let end = Self.job(seq: 5, priority: 10, kind: .liveActivityEnd, targets: [SenderFixtures.target(ended)])
        try await eventually("the update's round to end (it waits out its back-off)", within: .seconds(30), every: .milliseconds(50)) {
            order.mayStart(end, key: "m1:2") && registry.value("apns_sender_jobs_waiting") == 1
        }
        #expect(await processor.process(end, key: "m1:2", order: order) == .finished(delivered: 1, tokenInvalid: 0, dead: 0))
        #expect(transport.attempts(ended) == 2)
        #expect(await running.value == .finished(delivered: 1, tokenInvalid: 0, dead: 0))
        #expect(transport.attempts(ended) == 2, "the update is not retried to the ended activity")
        let text = registry.render()
        #expect(text.contains(#"apns_sender_targets_total{action="after_end"} 1"#))
        #expect(text.contains(#"apns_sender_targets_total{action="delivered"} 2"#))
        try await producer.shutdown()
    }
}
