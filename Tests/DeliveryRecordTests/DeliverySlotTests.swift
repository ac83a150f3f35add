import Contracts
@testable import DeliveryRecord
import Testing

/// The record's fixed 84-byte delivery: what goes in comes out, with its job's shared facts; long reasons are cut,
/// unknown bytes refused.
@Suite struct DeliverySlotTests {
    static let job = DeliveryJob(matchId: "m", jobId: "m:42:7:0", kind: .keyEvent, priority: 10, seq: 42, contentTimestamp: 1_733_450_000,
                                 createdAt: 1_733_450_000_100, finishedAt: 1_733_450_000_900, knownAt: 1_733_450_000_000, trimStep: 2)

    @Test("an entry round-trips through its slot and its job", arguments: PushResult.allCases)
    func roundTrip(result: PushResult) throws {
        let entry = DeliveryEntry(kind: .keyEvent, job: "m:42:7:0", seq: 42, result: result, status: result == .accepted ? 200 : 410,
                                  reason: result == .accepted ? nil : "Unregistered", apnsId: "6b1d4c2e-913a-4f0b-8e57-2dc4139a7760",
                                  token: "…0123abcd", timestamp: 1_733_450_000, at: 1_733_450_000_450, finishedAt: 1_733_450_000_900,
                                  freshnessMs: result == .accepted ? 450 : nil, tries: 3, priority: 10, createdAt: 1_733_450_000_100, trimStep: 2)
        var bytes: [UInt8] = []
        DeliverySlot(entry).write(&bytes)
        #expect(bytes.count == DeliverySlot.size)
        let slot = try #require(DeliverySlot.read(bytes, at: 0))
        #expect(slot.jobKey == DeliverySlot.key(jobId: "m:42:7:0"))
        #expect(slot.entry(Self.job) == entry)
    }

    @Test("a reason longer than 28 bytes is cut; a slot without its job keeps its own facts; bad bytes are refused")
    func edges() throws {
        let long = DeliveryEntry(kind: .update, job: "j", seq: 1, result: .dead, status: nil, reason: "connection reset by peer while reading frames",
                                 apnsId: nil, token: "", timestamp: nil, at: nil, finishedAt: 5, freshnessMs: nil, tries: 300, priority: 5, createdAt: 1)
        var bytes: [UInt8] = []
        DeliverySlot(long).write(&bytes)
        let slot = try #require(DeliverySlot.read(bytes, at: 0))
        #expect(slot.reason == "connection reset by peer whi" && slot.tries == 255 && slot.apnsId == nil && slot.at == 0)
        let orphan = slot.entry(nil)
        #expect(orphan.result == .dead && orphan.finishedAt == 5 && orphan.timestamp == nil && orphan.seq == 0)
        var unknown = bytes
        unknown[50] = 99
        #expect(DeliverySlot.read(unknown, at: 0) == nil)
        #expect(DeliverySlot.read(Array(bytes.prefix(83)), at: 0) == nil)
        #expect(DeliverySlot.readAll(bytes + bytes + [1, 2, 3]).count == 2)
    }
}
