import ClientCore
import Contracts
import Foundation
import Testing

@Suite struct ActivityPushTests {
    func payload(_ aps: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: ["aps": aps]))
    }

    func contentState(_ state: UnifiedDisplayState) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(state))
    }

    @Test func decodesAnUpdate() throws {
        let state = displayState(updatedAt: 1_711_234_560)
        let bytes = try payload([
            "timestamp": 1_711_234_567, "event": "update", "content-state": try contentState(state),
            "alert": ["title": "Wicket!", "body": "Rohit Sharma c Kohli b Bumrah 45(32)"], "relevance-score": 10,
        ])
        let push = try ActivityPush.decode(apnsPayload: bytes)
        var expected = ActivityPush(event: .update, timestamp: 1_711_234_567, contentState: state)
        expected.alert = Alert(title: "Wicket!", body: "Rohit Sharma c Kohli b Bumrah 45(32)")
        #expect(push == expected, "the alert is read too")
        #expect(push.matchId == "m1")
    }

    @Test func decodesAnEndWithItsDismissalDate() throws {
        let state = displayState(score: "180/7")
        let bytes = try payload([
            "timestamp": 1_800_000_100, "event": "end", "content-state": try contentState(state), "dismissal-date": 1_800_003_700,
        ])
        let push = try ActivityPush.decode(apnsPayload: bytes)
        #expect(push.event == .end)
        #expect(push.dismissalDate == 1_800_003_700)
        #expect(push.content == ActivityContent(state: state, timestamp: 1_800_000_100))
    }

    @Test func rejectsOtherBodiesWithAnExcerpt() throws {
        let bytes = Array(#"{"aps":{"alert":"hello"}}"#.utf8)
        let error = try #require(throws: ActivityPushDecodeError.self) { try ActivityPush.decode(apnsPayload: bytes) }
        #expect(error.excerpt == #"{"aps":{"alert":"hello"}}"#)
    }
}
