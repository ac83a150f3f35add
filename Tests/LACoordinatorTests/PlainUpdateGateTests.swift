import Contracts
@testable import FanOut
import Kafka
import Testing

/// The overload rule of la-coordinator, decision by decision (Unix ms are plain numbers here).
@Suite("plain-update gate")
struct PlainUpdateGateTests {
    let source = KafkaTopicPartition(topic: "match.events", partition: 3)
    let wicket = KeyEvent(kind: .wicket, priority: 10, alert: Alert(title: "Wicket!", body: "b Starc"))

    func event(_ seq: Int64, key: KeyEvent? = nil, match: String = "m1", phase: MatchPhase = .live) -> MatchBusEvent {
        TestSupport.event(matchId: match, seq: seq, key: key, phase: phase)
    }

    /// A gate that fanned out a key event of m1 at 0 ms (jobs up to offset 5 of partition 0), not yet sent.
    func afterAKeyEvent(_ settings: PlainUpdateGate.Settings = .init()) -> PlainUpdateGate {
        var gate = PlainUpdateGate(settings: settings)
        _ = gate.admit(event(1, key: wicket), source: source, offset: 1, now: 0)
        gate.fannedOut(matchId: "m1", startedAt: 0, highestOffsets: [0: 5], now: 100)
        return gate
    }

    @Test("while apns-sender sends a match's fan-out, plain updates wait and the newest wins; then as long again as it took")
    func holdsUntilTheSenderIsThroughAndSpacesByTheFanOutTime() {
        var gate = PlainUpdateGate(settings: .init(minimumSpacing: .seconds(1), maximumHold: .seconds(30)))
        #expect(gate.admit(event(1, key: wicket), source: source, offset: 10, now: 0) == .fanOutNow(superseded: nil))
        gate.fannedOut(matchId: "m1", startedAt: 0, highestOffsets: [0: 40, 1: 41], now: 200)
        #expect(gate.admit(event(2), source: source, offset: 11, now: 1000) == .hold(superseded: nil))
        let second = gate.held["m1"]
        guard case .hold(let replaced) = gate.admit(event(3), source: source, offset: 12, now: 2000) else {
            Issue.record("seq 3 must be held")
            return
        }
        #expect(replaced == second, "seq 3 replaces the held seq 2")
        #expect(gate.holdFloor == [source: 12], "nothing after the held update is committed")
        #expect(gate.isWaitingForSender)
        // The sender committed partition 0 past its jobs but not partition 1: not through yet.
        gate.senderCommitted([0: 41, 1: 41], now: 2500)
        #expect(gate.release(now: 2500).isEmpty)
        gate.senderCommitted([0: 41, 1: 42], now: 2800)
        #expect(!gate.isWaitingForSender)
        // Through at 2.8 s after 2.8 s of sending: the held update waits as long again, until 5.6 s.
        #expect(gate.nextDeadline == 5600)
        #expect(gate.release(now: 5599).isEmpty)
        let released = gate.release(now: 5600)
        #expect(released.map(\.event.seq) == [3] && released.first?.heldSince == 1000, "the first hold's time is kept")
        #expect(gate.heldCount == 0 && gate.holdFloor.isEmpty)
    }

    @Test("a key event is never held and supersedes the held plain update; an end too")
    func keyEventsAndEndsGoAtOnce() {
        var gate = afterAKeyEvent()
        #expect(gate.admit(event(2), source: source, offset: 2, now: 500) == .hold(superseded: nil))
        guard case .fanOutNow(let superseded) = gate.admit(event(3, key: wicket), source: source, offset: 3, now: 900) else {
            Issue.record("a key event goes at once")
            return
        }
        #expect(superseded?.event.seq == 2 && gate.heldCount == 0)
        gate.fannedOut(matchId: "m1", startedAt: 900, highestOffsets: [0: 9], now: 1000)
        _ = gate.admit(event(4), source: source, offset: 4, now: 1100)
        let end = event(5, phase: .ended)
        let heldBefore = gate.held["m1"]
        #expect(heldBefore?.event.seq == 4)
        #expect(gate.admit(end, source: source, offset: 5, now: 1200) == .fanOutNow(superseded: heldBefore))
    }

    @Test("a key event fanned out before apns-sender was through the previous fan-out: both are awaited, and the spacing is one fan-out's share")
    func overlappingFanOutsAreAwaitedTogether() {
        var gate = PlainUpdateGate(settings: .init(minimumSpacing: .seconds(1), maximumHold: .seconds(60)))
        _ = gate.admit(event(1, key: wicket), source: source, offset: 1, now: 0)
        gate.fannedOut(matchId: "m1", startedAt: 0, highestOffsets: [0: 10, 1: 10], now: 100)
        _ = gate.admit(event(2, key: wicket), source: source, offset: 2, now: 2000)
        gate.fannedOut(matchId: "m1", startedAt: 2000, highestOffsets: [1: 20, 2: 20], now: 2100)
        _ = gate.admit(event(3), source: source, offset: 3, now: 3000)
        gate.senderCommitted([0: 11, 1: 11, 2: 0], now: 4000)
        #expect(gate.isWaitingForSender, "through the first fan-out only")
        gate.senderCommitted([0: 11, 1: 21, 2: 21], now: 8000)
        // 8 s for two fan-outs: 4 s each, so the held update goes at 12 s.
        #expect(gate.nextDeadline == 12_000)
        #expect(gate.release(now: 12_000).map(\.event.seq) == [3])
    }

    @Test("bounded: a plain update goes at the hold bound after the previous fan-out began, whatever apns-sender does")
    func holdBound() {
        var gate = afterAKeyEvent(.init(minimumSpacing: .seconds(1), maximumHold: .seconds(30)))
        _ = gate.admit(event(2), source: source, offset: 2, now: 1000)
        #expect(gate.nextDeadline == 30_000)
        #expect(gate.release(now: 29_999).isEmpty)
        #expect(gate.release(now: 30_000).map(\.event.seq) == [2])
    }

    @Test("other matches are independent; a fan-out with no jobs holds nothing back beyond the spacing; a hold bound of 0 turns the rule off")
    func independentMatchesAndTheSwitch() {
        var gate = afterAKeyEvent(.init(minimumSpacing: .milliseconds(500), maximumHold: .seconds(30)))
        #expect(gate.admit(event(1, match: "m2"), source: source, offset: 2, now: 200) == .fanOutNow(superseded: nil))
        gate.fannedOut(matchId: "m2", startedAt: 200, highestOffsets: [:], now: 210)
        #expect(gate.admit(event(2, match: "m2"), source: source, offset: 3, now: 400) == .hold(superseded: nil))
        #expect(gate.release(now: 710).map(\.event.matchId) == ["m2"], "no jobs: only the minimum spacing")

        var off = afterAKeyEvent(.init(maximumHold: .zero))
        #expect(off.admit(event(2), source: source, offset: 2, now: 150) == .fanOutNow(superseded: nil))
    }

    @Test("a redelivered older plain update is stale; held updates of revoked partitions are forgotten; stopping releases all")
    func staleRevokedAndStopping() {
        var gate = afterAKeyEvent()
        _ = gate.admit(event(3), source: source, offset: 3, now: 200)
        #expect(gate.admit(event(2), source: source, offset: 2, now: 300) == .stale)
        let other = KafkaTopicPartition(topic: "match.events", partition: 7)
        _ = gate.admit(event(1, key: wicket, match: "m9"), source: other, offset: 1, now: 0)
        gate.fannedOut(matchId: "m9", startedAt: 0, highestOffsets: [0: 6], now: 100)
        _ = gate.admit(event(2, match: "m9"), source: other, offset: 2, now: 300)
        gate.keepOnly([source])
        #expect(gate.heldCount == 1 && gate.held["m9"] == nil)
        gate.releaseAll()
        #expect(gate.release(now: 301).map(\.event.seq) == [3])
    }
}
