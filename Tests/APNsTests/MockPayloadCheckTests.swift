@testable import APNsMock
import Testing

/// mock-apns's payload checks, as a phone's Live Activity needs the body.
@Suite struct MockPayloadCheckTests {
    func problem(_ json: String, liveActivity: Bool = true) -> String? {
        MockAPNsPayloadCheck.problem(in: Array(json.utf8), liveActivity: liveActivity)
    }

    @Test func goodBodiesPass() {
        #expect(problem(#"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"score":"1/0"},"stale-date":1800000900}}"#) == nil)
        #expect(problem(#"{"aps":{"timestamp":1800000000,"event":"end","content-state":{},"dismissal-date":1800003600}}"#) == nil)
        #expect(problem(#"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"MatchActivityAttributes","attributes":{"matchId":"m"}}}"#) == nil)
        #expect(problem(#"{"aps":{"alert":{"title":"Wicket"}}}"#, liveActivity: false) == nil)
    }

    @Test func eachProblemIsNamed() {
        #expect(problem(#"{"nope":1}"#) == "no aps object")
        #expect(problem(#"{"aps":3}"#) == "aps is not an object")
        #expect(problem(#"{"aps":{"event":"update","content-state":{}}}"#) == "aps.timestamp must be a number")
        #expect(problem(#"{"aps":{"timestamp":"soon","event":"update","content-state":{}}}"#) == "aps.timestamp must be a number")
        #expect(problem(#"{"aps":{"timestamp":1,"event":"pause","content-state":{}}}"#) == "aps.event must be start, update or end")
        #expect(problem(#"{"aps":{"timestamp":1,"event":"update","content-state":[]}}"#) == "aps.content-state must be an object")
        #expect(problem(#"{"aps":{"timestamp":1,"event":"update","content-state":{},"stale-date":"x"}}"#) == "aps.stale-date must be a number")
        #expect(problem(#"{"aps":{"timestamp":1,"event":"update","content-state":{},"dismissal-date":5}}"#) == "aps.dismissal-date is only for end")
        #expect(problem(#"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes":{}}}"#) == "start needs aps.attributes-type")
        #expect(problem(#"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"A"}}"#) == "start needs an aps.attributes object")
    }

    @Test func pushInputsOnlyOnStartsAndNeverBoth() {
        let start = #"{"aps":{"timestamp":1,"event":"start","content-state":{},"attributes-type":"A","attributes":{}"#
        #expect(problem(start + #","input-push-channel":"QUJDRA=="}}"#) == nil)
        #expect(problem(start + #","input-push-token":1}}"#) == nil)
        #expect(problem(start + #","input-push-channel":"QUJDRA==","input-push-token":1}}"#) == "aps.input-push-channel and aps.input-push-token together")
        #expect(problem(start + #","input-push-channel":7}}"#) == "aps.input-push-channel must be a base64 channel id")
        #expect(problem(#"{"aps":{"timestamp":1,"event":"update","content-state":{},"input-push-channel":"QUJDRA=="}}"#)
                == "aps.input-push-channel / input-push-token are only for start")
    }

    @Test func notJSONIsRefused() {
        #expect(problem("{nope") == "payload is not a JSON object")
        #expect(problem(#"{"aps":{}} trailing"#, liveActivity: false) == "payload is not a JSON object")
        #expect(problem("") == "payload is not a JSON object")
    }
}
