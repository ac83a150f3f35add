import APNsMock
import Foundation
import MatchDayCheck
import Testing

/// Invariant 6 without servers: the delivery record against what mock-apns accepted, each disagreement found.
@Suite struct RecordAgreementRuleTests {
    /// A device's pushes: d1 holds tokens "aaa…1" (push-to-start) and "bbb…1" (update), d2 "ccc…2".
    static let owners = ["aaaaaaaaaaaa0001": "d1", "bbbbbbbbbbbb0001": "d1", "cccccccccccc0002": "d2"]

    static func push(_ sequence: Int, _ token: String, _ id: String, event: String, priority: Int = 5, pushType: String = "liveactivity")
        -> MockAPNsDelivery
    {
        MockAPNsDelivery(
            apnsID: id, token: token, topic: "t.push-type.liveactivity", pushType: pushType, priority: priority, expiration: nil,
            collapseID: nil, payload: #"{"aps":{"event":"\#(event)","timestamp":\#(1000 + sequence)}}"#, receivedAt: Int64(sequence),
            connectionID: 1, sequence: sequence)
    }

    /// d1: start, update, key event, a replay of the key event (the same apns-id), end; d2: start.
    static let seen = [
        push(1, "aaaaaaaaaaaa0001", "s1", event: "start", priority: 10),
        push(2, "cccccccccccc0002", "s2", event: "start", priority: 10),
        push(3, "bbbbbbbbbbbb0001", "u1", event: "update"),
        push(4, "bbbbbbbbbbbb0001", "k1", event: "update", priority: 10),
        push(5, "bbbbbbbbbbbb0001", "k1", event: "update", priority: 10),
        push(6, "bbbbbbbbbbbb0001", "e1", event: "end", priority: 10),
        push(7, "zzzzzzzzzzzz9999", "x1", event: "update"),  // no device of the run
    ]

    static func agreeing() -> [RecordAgreementRule.RecordedDevice] {
        [
            .init(deviceId: "d1", accepted: 4, pushes: [("s1", "start"), ("u1", "update"), ("k1", "key_event"), ("e1", "end")]),
            .init(deviceId: "d2", accepted: 1, pushes: [("s2", "start")]),
        ]
    }

    func check(_ records: [RecordAgreementRule.RecordedDevice]) -> RecordAgreementRule.Report {
        RecordAgreementRule().check(records: records, deliveries: Self.seen, owner: { Self.owners[$0] })
    }

    @Test func anAgreeingRecordHasNoViolations() {
        let report = check(Self.agreeing())
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.devices == 2)
        #expect(report.accepted == 6)
        // A job sent again (counted twice by the record and by APNs) agrees too.
        var twice = Self.agreeing()
        twice[0].accepted = 5
        #expect(check(twice).violations.isEmpty)
    }

    /// One way a record can disagree with APNs, and what the violation says.
    enum Disagreement: String, CaseIterable, Sendable {
        case neverAccepted, otherKind, newestMissing, tooFew, tooMany, noRow

        func apply(_ records: inout [RecordAgreementRule.RecordedDevice]) {
            switch self {
            case .neverAccepted: records[1].pushes.append(("ghost", "update"))
            case .otherKind: records[0].pushes[1].kind = "key_event"
            case .newestMissing: records[0].pushes.removeLast()
            case .tooFew: records[0].accepted = 3
            case .tooMany: records[0].accepted = 6
            case .noRow: records.removeLast()
            }
        }

        var says: String {
            switch self {
            case .neverAccepted: "never accepted"
            case .otherKind: "APNs got a update"
            case .newestMissing: "newest push"
            case .tooFew: "counts 3 accepted"
            case .tooMany: "counts 6 accepted"
            case .noRow: "has no row"
            }
        }
    }

    @Test(arguments: Disagreement.allCases)
    func eachDisagreementIsOneViolation(_ disagreement: Disagreement) {
        var records = Self.agreeing()
        disagreement.apply(&records)
        let violations = check(records).violations
        #expect(violations.count == 1, "\(disagreement): \(violations)")
        #expect(violations.first?.rule == .recordDisagrees)
        #expect(violations.first?.detail.contains(disagreement.says) == true, "\(disagreement): \(violations)")
    }

    @Test func kindsComeFromThePushTypeTheEventAndThePriority() {
        #expect(RecordAgreementRule.kind(of: Self.push(1, "t", "i", event: "update", priority: 10)) == "key_event")
        #expect(RecordAgreementRule.kind(of: Self.push(1, "t", "i", event: "update")) == "update")
        #expect(RecordAgreementRule.kind(of: Self.push(1, "t", "i", event: "end", priority: 10)) == "end")
        #expect(RecordAgreementRule.kind(of: Self.push(1, "t", "i", event: "x", pushType: "background")) == "background")
        #expect(RecordAgreementRule.kind(of: Self.push(1, "t", "i", event: "x", pushType: "alert")) == "alert")
    }
}
