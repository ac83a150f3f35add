@testable import API
import SharedTestSupport
import Synchronization
import Testing
import Runtime

/// The group-commit queue without servers: batching, dedupe, failure isolation, early release.
@Suite("Group commit queue")
struct GroupCommitQueueTests {
    struct Refused: Error, Equatable { let inputs: [Int] }

    /// Records the batches a queue's work function saw.
    final class Batches: Sendable {
        let seen = LockedValue<[[Int]]>([])
        func record(_ inputs: [Int]) { seen.withLock { $0.append(inputs) } }
        var all: [[Int]] { seen.withLock { $0 } }
    }

    @Test func followersQueueWhileABatchRunsAndGoTogetherDeduplicated() async throws {
        let gate = TestGate()
        let batches = Batches()
        let queue = GroupCommitQueue<Int, String>(limits: .init(maxBatch: 100, concurrency: 1)) { inputs, _ in
            batches.record(inputs)
            if inputs == [0] { await gate.wait() }
            return inputs.map { .success("v\($0)") }
        }
        async let first = queue.submit(0)
        try await eventually("the first batch starts") { batches.all.count == 1 }
        async let a = queue.submit(1)
        async let b = queue.submit(2)
        async let c = queue.submit(2)
        async let d = queue.submit(3)
        try await eventually("four follows queue behind the running batch") { queue.pendingCount == 4 }
        gate.open()
        let results = try await [first, a, b, c, d]
        #expect(results == ["v0", "v1", "v2", "v2", "v3"])
        let seen = batches.all
        #expect(seen.count == 2)
        #expect(seen.first == [0])
        #expect(seen.last.map { $0.sorted() } == [1, 2, 3], "equal inputs reach the work once")
    }

    /// With a wait configured, a batch waits for company only while another batch runs.
    @Test(.timeLimit(.minutes(1))) func theWaitAppliesOnlyUnderLoad() async throws {
        // Idle queue with a 120 s wait: a lone input still goes at once (waiting would exceed the time limit).
        let idle = GroupCommitQueue<Int, Int>(limits: .init(maxBatch: 3, concurrency: 2, maxWait: .seconds(120))) { inputs, _ in
            inputs.map { .success($0) }
        }
        #expect(try await idle.submit(7) == 7)

        // Under load (one batch holds a slot): the next batch waits (up to 2 s) and collects what arrives meanwhile.
        let gate = TestGate()
        let batches = Batches()
        let queue = GroupCommitQueue<Int, Int>(limits: .init(maxBatch: 3, concurrency: 2, maxWait: .seconds(2))) { inputs, _ in
            batches.record(inputs)
            if inputs == [0] { await gate.wait() }
            return inputs.map { .success($0) }
        }
        async let first = queue.submit(0)
        try await eventually("the first batch runs") { batches.all.count == 1 }
        async let a = queue.submit(1)
        async let b = queue.submit(2)
        async let c = queue.submit(3)
        #expect(try await [a, b, c] == [1, 2, 3])
        #expect(batches.all.count == 2)
        #expect(batches.all.last.map { $0.sorted() } == [1, 2, 3], "the waiting batch collected all three")
        gate.open()
        #expect(try await first == 0)
    }

    @Test func aLoneInputGoesAtOnceAndAFailingBatchFailsOnlyItsCallers() async throws {
        let gate = TestGate()
        let batches = Batches()
        let queue = GroupCommitQueue<Int, Int>(limits: .init(maxBatch: 100, concurrency: 1)) { inputs, _ in
            batches.record(inputs)
            if inputs == [0] { await gate.wait() }
            if inputs.contains(13) { return inputs.map { _ in .failure(Refused(inputs: inputs.sorted())) } }
            return inputs.map { .success($0 * 10) }
        }
        #expect(try await queue.submit(7) == 70)
        let first = Task { try await queue.submit(0) }
        try await eventually("the first batch starts") { batches.all.count == 2 }
        let bad = Task { try await queue.submit(13) }
        let alsoBad = Task { try await queue.submit(14) }
        try await eventually("two inputs queue") { queue.pendingCount == 2 }
        gate.open()
        #expect(try await first.value == 0)
        for task in [bad, alsoBad] {
            await #expect(throws: Refused(inputs: [13, 14])) { try await task.value }
        }
        #expect(try await queue.submit(5) == 50, "a later batch is not affected")
        #expect(batches.all.count == 4)
    }

    @Test func releaseLetsTheNextBatchRunWhileOneFinishes() async throws {
        let gate = TestGate()
        let batches = Batches()
        let queue = GroupCommitQueue<Int, Int>(limits: .init(maxBatch: 100, concurrency: 1)) { inputs, release in
            batches.record(inputs)
            release()
            if inputs == [0] { await gate.wait() }
            return inputs.map { .success($0) }
        }
        let first = Task { try await queue.submit(0) }
        try await eventually("the first batch starts") { batches.all.count == 1 }
        #expect(try await queue.submit(1) == 1, "ran while the first batch still waits after releasing its slot")
        gate.open()
        #expect(try await first.value == 0)
    }
}

