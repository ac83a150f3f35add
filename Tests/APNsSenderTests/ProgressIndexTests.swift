@testable import APNsSender
import Contracts
import Foundation
import Kafka
import Testing

/// `ProgressIndex`: marks folded per job message (a union), matched to the very message they were written for.
@Suite struct ProgressIndexTests {
    static let partition = KafkaTopicPartition(topic: "push.jobs", partition: 3)

    static func message(partition: Int32 = 3, offset: Int64 = 40, timestampMs: Int64 = 1_765_000_000_123) -> KafkaMessage {
        KafkaMessage(topic: "push.jobs", partition: partition, offset: offset, key: nil, value: [], headers: [],
                     timestamp: Date(timeIntervalSince1970: Double(timestampMs) / 1000))
    }

    static func answered(_ accepted: [Range<Int>], refused: [Int] = [], offset: Int64 = 40, timestampMs: Int64 = 1_765_000_000_123) -> PushProgress {
        PushProgress(kind: .answered, jobsTopic: "push.jobs", partition: 3, offset: offset, messageTimestamp: timestampMs, jobId: "j",
                     accepted: accepted, refused: refused.map { .init(index: $0, status: 410, reason: "Unregistered", apnsTimestamp: 7) }, at: 1)
    }

    @Test func answeredMarksAreUnitedAndTakenOnce() {
        var index = ProgressIndex()
        index.assign([Self.partition])
        let result1 = index.add(Self.answered([0..<10]))
        #expect(result1 == .kept)
        let result2 = index.add(Self.answered([5..<20, 30..<31], refused: [25]))
        #expect(result2 == .kept)
        let entry = index.take(Self.message())
        #expect(entry?.accepted == IndexSet(integersIn: 0..<20).union(IndexSet(integer: 30)))
        #expect(entry?.refused[25]?.apnsTimestamp == 7)
        #expect(entry?.done == false)
        #expect(entry?.answers(19) == true && entry?.answers(25) == true && entry?.answers(20) == false)
        let result3 = index.take(Self.message())
        #expect(result3 == nil, "taken once")
    }

    @Test func aDoneMarkFinishesTheMessage() {
        var index = ProgressIndex()
        index.assign([Self.partition])
        index.add(Self.answered([0..<10]))
        index.add(PushProgress(kind: .done, jobsTopic: "push.jobs", partition: 3, offset: 40, messageTimestamp: 1_765_000_000_123, jobId: nil, at: 2))
        let result4 = index.take(Self.message())
        #expect(result4?.done == true)
    }

    @Test func marksOfAnotherMessageAtTheSameOffsetDoNotMatch() {
        var index = ProgressIndex()
        index.assign([Self.partition])
        index.add(Self.answered([0..<10], timestampMs: 1_000))
        let result5 = index.take(Self.message())
        #expect(result5 == nil, "a recreated topic's offset")
        index.add(Self.answered([0..<10]))
        let result6 = index.take(Self.message(offset: 41))
        #expect(result6 == nil)
        let result7 = index.take(Self.message(partition: 4))
        #expect(result7 == nil)
        // Marks of an older message at that offset after the newer one's are ignored; the newer message's stay.
        let result8 = index.add(Self.answered([10..<20], timestampMs: 1_000))
        #expect(result8 == .refused)
        let result9 = index.take(Self.message())
        #expect(result9?.accepted == IndexSet(integersIn: 0..<10))
    }

    @Test func malformedMarksChangeNothing() {
        var index = ProgressIndex()
        index.assign([Self.partition])
        var bad = Self.answered([0..<10])
        bad.accepted = [[0, 1001]]
        let result10 = index.add(bad)
        #expect(result10 == .refused)
        let result11 = index.add(Self.answered([], refused: [PushJob.maximumTargets]))
        #expect(result11 == .refused)
        #expect(index.entries.isEmpty)
    }

    @Test func marksBeforeTheFirstMessageReadAreNotKept() {
        var index = ProgressIndex()
        index.assign([Self.partition])
        index.add(Self.answered([0..<10], offset: 38))
        index.add(Self.answered([0..<10], offset: 40))
        index.noteRead(Self.message(offset: 39))
        #expect(index.entries.keys.map(\.offset) == [40], "the group stood at 39: 38 is never read again")
        index.add(Self.answered([0..<10], offset: 37))
        #expect(index.entries.keys.map(\.offset) == [40], "marks read after the first message below it are not kept")
        index.noteRead(Self.message(offset: 41))
        #expect(index.entries.keys.map(\.offset) == [40], "only the first message read sets the floor")
        index.forget([Self.partition])
        index.add(Self.answered([0..<10], offset: 37))
        #expect(index.entries.isEmpty, "a revoked partition's marks are not kept (a read that ends after the revocation)")
        index.assign([Self.partition])
        index.add(Self.answered([0..<10], offset: 37))
        #expect(index.entries.keys.map(\.offset) == [37], "a new assignment starts without a floor")
    }

    @Test func revokedPartitionsAreForgotten() {
        var index = ProgressIndex()
        index.assign([Self.partition])
        index.add(Self.answered([0..<10]))
        index.forget([KafkaTopicPartition(topic: "push.jobs", partition: 3)])
        let result12 = index.take(Self.message())
        #expect(result12 == nil)
    }

    @Test func marksSayWhichStatesReachedDevices() {
        func mark(_ kind: PushProgress.Kind, accepted: [Range<Int>] = [], orderKey: String? = nil, channelId: String? = nil,
                  stateSeq: Int64? = 6) -> PushProgress {
            PushProgress(kind: kind, jobsTopic: "push.jobs", partition: 3, offset: 1, messageTimestamp: 1, jobId: "j", orderKey: orderKey,
                         channelId: channelId, stateSeq: stateSeq, accepted: accepted, at: 1)
        }
        #expect(ProgressIndex.StateSent(mark(.done, orderKey: "m:1")) == .key("m:1", stateSeq: 6))
        #expect(ProgressIndex.StateSent(mark(.answered, accepted: [0..<1], orderKey: "m:1")) == .key("m:1", stateSeq: 6))
        #expect(ProgressIndex.StateSent(mark(.answered, orderKey: "m:1")) == nil, "only refusals: nothing reached a device")
        #expect(ProgressIndex.StateSent(mark(.done, channelId: "c1")) == .channel("c1", stateSeq: 6))
        #expect(ProgressIndex.StateSent(mark(.done)) == nil, "a start or an alert: no order to keep")
        #expect(ProgressIndex.StateSent(mark(.done, orderKey: "m:1", stateSeq: nil)) == nil)
        // Applied as the sender applies it: an older plain update of the key is superseded, a newer one is not.
        let order = SendOrder()
        order.noteSent(stateSeq: 6, key: "m:1")
        func update(_ seq: Int64) -> PushJob {
            PushJob(jobId: "u\(seq)", kind: .liveActivityUpdate, matchId: "m", stateSeq: seq, priority: 5, expiration: 0, relevanceScore: nil,
                    payload: "{}", targets: [], createdAt: 0)
        }
        #expect(!order.beginRound(update(5), key: "m:1"))
        #expect(order.beginRound(update(7), key: "m:1"))
    }

    @Test func noJobStartsWhileMarksAreRead() {
        var lookahead = JobLookahead(capacity: 4)
        let job = PushJob(jobId: "j", kind: .liveActivityUpdate, matchId: "m", stateSeq: 1, priority: 5, expiration: 0, relevanceScore: nil,
                          payload: "{}", targets: [], createdAt: 0)
        lookahead.append(.init(message: Self.message(), incoming: .job(job), key: "m:0"))
        lookahead.beginLoadingMarks()
        lookahead.beginLoadingMarks()
        let whileReading = lookahead.takeNext(order: SendOrder())
        #expect(whileReading == nil)
        lookahead.endLoadingMarks()
        let whileOneReads = lookahead.takeNext(order: SendOrder())
        #expect(whileOneReads == nil, "one read still under way")
        lookahead.endLoadingMarks()
        let afterwards = lookahead.takeNext(order: SendOrder())
        #expect(afterwards?.entry.key == "m:0")
    }
}
