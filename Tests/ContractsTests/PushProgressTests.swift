import Contracts
import Foundation
import Testing

/// `PushProgress`: the hand-written encoder gives `MessageCodec`'s bytes, ranges, and bad marks refused.
@Suite struct PushProgressTests {
    static let marks: [PushProgress] = [
        PushProgress(kind: .done, jobsTopic: "push.jobs", partition: 7, offset: 1_234_567, messageTimestamp: 1_765_000_000_123,
                     jobId: "m1-e4-s3-0", orderKey: "m1:3", stateSeq: 42, at: 1_765_000_000_999),
        PushProgress(kind: .done, jobsTopic: "push.jobs", partition: 2, offset: 5, messageTimestamp: 6, jobId: "m1-bc",
                     channelId: "Y2hhbm5lbC8x+==", stateSeq: -3, at: 7),
        PushProgress(kind: .done, jobsTopic: "push.jobs", partition: 0, offset: 0, messageTimestamp: -1, jobId: nil, at: 0),
        PushProgress(kind: .answered, jobsTopic: "bench-\"q\"\\/é.jobs", partition: 23, offset: 9, messageTimestamp: 5, jobId: "j\u{1}\n",
                     accepted: [0..<64, 70..<71, 900..<1000],
                     refused: [PushProgress.Refusal(index: 64, status: 410, reason: "Unregistered", apnsTimestamp: 1_765_000_000_000),
                               PushProgress.Refusal(index: 65, status: 400, reason: "BadDeviceToken", apnsTimestamp: nil)],
                     at: 1_765_000_001_000),
        PushProgress(kind: .answered, jobsTopic: "t", partition: 1, offset: 2, messageTimestamp: 3, jobId: "x",
                     refused: [PushProgress.Refusal(index: 0, status: 410, reason: "Unregistered", apnsTimestamp: nil)], at: 4),
    ]

    @Test(arguments: marks) func theHandWrittenEncoderWritesMessageCodecsBytes(_ mark: PushProgress) throws {
        let expected = try MessageCodec.encode(mark)
        let written = PushProgressEncoder.encode(mark)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(try MessageCodec.decode(PushProgress.self, from: written) == mark)
    }

    @Test func indicesBecomeTheFewestRanges() {
        #expect(PushProgress.ranges(of: []) == [])
        #expect(PushProgress.ranges(of: [0, 1, 2, 5, 7, 8]) == [0..<3, 5..<6, 7..<9])
        #expect(PushProgress.ranges(of: [999]) == [999..<1000])
    }

    @Test func malformedRangesAreRefused() {
        var mark = PushProgress(kind: .answered, jobsTopic: "t", partition: 0, offset: 0, messageTimestamp: 0, jobId: nil, at: 0)
        mark.accepted = [[0, 10]]
        #expect(mark.acceptedRanges(targetCount: 10) == [0..<10])
        for bad in [[[0, 11]], [[5, 4]], [[-1, 3]], [[1]], [[1, 2, 3]]] {
            mark.accepted = bad
            #expect(mark.acceptedRanges(targetCount: 10) == nil, "\(bad)")
        }
    }

    @Test func aJobsPartitionMapsOntoTheProgressPartitions() {
        #expect(PushProgress.progressPartition(forJobsPartition: 23, progressPartitions: 24) == 23)
        #expect(PushProgress.progressPartition(forJobsPartition: 23, progressPartitions: 6) == 5)
        #expect(PushProgress.progressPartition(forJobsPartition: 3, progressPartitions: 0) == 0)
    }
}
