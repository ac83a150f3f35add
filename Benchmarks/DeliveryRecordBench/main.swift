import Contracts
import DeliveryRecord
import Foundation

// delivery-record-bench [OUTCOMES] [TARGETS]: the delivery record's CPU per push outside PostgreSQL — apns-sender's
// side (encoding a job's outcome) and la-coordinator's recorder (decoding outcomes, folding them, building a write's
// parameters) — on OUTCOMES outcomes (64, one recorder batch) of TARGETS targets (1,000) each. Prints µs per push per
// step (the best of 5 rounds). Release build: swift run -c release delivery-record-bench.
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let outcomeCount = arguments.first ?? 64
let targetCount = arguments.dropFirst().first ?? 1000
let token = String(repeating: "9f", count: 80)
let outcomes: [PushOutcome] = (0..<outcomeCount).map { index in
    let job = PushJob(jobId: "1299701415755:\(index):\(index % 64):0", kind: .liveActivityUpdate, matchId: "1299701415755", stateSeq: 154,
                      priority: 10, expiration: 1_733_450_900, relevanceScore: 10, payload: #"{"aps":{"timestamp":1733450000}}"#,
                      targets: (0..<targetCount).map { PushTarget(token: token, env: .production, userId: "user-\(index)-\($0)", deviceId: "device-\($0 % 3)") },
                      createdAt: 1_733_450_000_100, knownAt: 1_733_450_000_000)
    return PushOutcome(job: job, contentTimestamp: 1_733_450_000, finishedAt: 1_733_450_001_000, results: job.targets.map {
        PushTargetResult(userId: $0.userId, deviceId: $0.deviceId, token: TokenMask.mask($0.token), result: .accepted, status: 200, reason: nil,
                         apnsId: "6b1d4c2e-913a-4f0b-8e57-2dc4139a7760", tries: 1, at: 1_733_450_000_800)
    })
}
let pushes = Double(outcomeCount * targetCount)

func best(_ label: String, _ body: () throws -> Void) rethrows {
    var fastest = Double.infinity
    for _ in 0..<5 {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        fastest = min(fastest, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    print(String(format: "%-46@ %7.3f µs per push", label as NSString, fastest / pushes * 1e6))
}

var encoded: [[UInt8]] = []
try best("apns-sender: encode outcomes (PushOutcomeEncoder)") { encoded = outcomes.map(PushOutcomeEncoder.encode) }
var decoded: [PushOutcome] = []
try best("recorder: decode outcomes (MessageCodec)") { decoded = try encoded.map { try MessageCodec.decode(PushOutcome.self, from: $0) } }
var fold = DeliveryFold()
best("recorder: fold") {
    fold = DeliveryFold()
    for outcome in decoded { fold.add(outcome) }
}
let subjects = Array(fold.deltas.keys)
var bytes = 0
best("recorder: write parameters (slots, hex, arrays)") {
    bytes = 0
    var start = 0
    while start < subjects.count {
        let end = min(start + 2000, subjects.count)
        for case let text as String in DeliveryRecordStore.rowParameters(subjects[start..<end], fold) { bytes += text.utf8.count }
        start = end
    }
}
print("\(outcomeCount) outcomes × \(targetCount) targets, \(fold.deltas.count) rows, \(bytes / max(1, fold.deltas.count)) parameter bytes per row")
