import Contracts
import Foundation
import HTTPServer
import Testing
@testable import API

/// The follow answer with a spliced, pre-encoded display state must be the JSON the plain encoder gives.
@Suite struct FollowResponseTests {
    func object(_ body: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? NSDictionary)
    }

    @Test(arguments: [[], ["d1"], ["d1", "d\"2/\\é\u{1}\n"]], [nil, "ch/+1=", "c\"h"])
    func splicedEqualsPlain(startedDevices: [String], channelId: String?) throws {
        let state = APITestHarness.displayState("m-splice")
        let response = APIBodies.FollowResponse(
            matchId: "m-splice/\u{7f}ü", following: true, isLive: true, expiresAt: "2027-01-01T00:00:00Z",
            startedDevices: startedDevices, displayState: state, channelId: channelId)
        let stateJSON = Array(try HTTPResponse.jsonEncoder().encode(state))
        let spliced = FollowRoutes.splicedFollowResponse(response, stateJSON: stateJSON)
        let plain = HTTPResponse.json(response)
        #expect(spliced.status == 200)
        #expect(try object(spliced.body) == (try object(plain.body)))
        #expect(spliced.body == plain.body, "the same bytes as the plain encoder")
    }
}
