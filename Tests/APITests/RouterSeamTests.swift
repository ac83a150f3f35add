@testable import API
import Foundation
import Testing

/// The in-process seam answers exactly as the server does: the same requests, in-process and over real
/// HTTP, give the same status, the same content type and the same body.
@Suite("Router in-process and over HTTP")
struct RouterSeamTests {
    @Test func sameAnswersBothWays() async throws {
        let api = try await APITestHarness.shared()
        let user = APITestHarness.unique("u")
        let match = APITestHarness.unique("m")
        try await api.seedMatch(match, live: false, startsAt: Date().addingTimeInterval(86_400))
        let requests: [(String, String, String?, Any?)] = [
            ("GET", "/matches/\(match)", user, nil),
            ("GET", "/matches/unknown-\(match)", user, nil),
            ("GET", "/user/follows", nil, nil),
            ("POST", "/user/follow/match", user, ["matchId": 42]),
            ("DELETE", "/matches/\(match)", user, nil),
        ]
        for (method, path, who, json) in requests {
            let inProcess = try await api.call(method, path, as: who, json: json)
            let overHTTP = try await api.over(.http).call(method, path, as: who, json: json)
            #expect(inProcess.status == overHTTP.status, "\(method) \(path)")
            #expect(inProcess.headers["content-type"] == overHTTP.headers["content-type"], "\(method) \(path)")
            #expect(inProcess.text == overHTTP.text, "\(method) \(path)")
        }
    }
}
