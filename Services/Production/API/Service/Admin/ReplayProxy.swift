import Foundation
import HTTPServer

#if canImport(FoundationNetworking)
import FoundationNetworking
import Runtime
#endif

/// Forwards the admin replay controls to fake-sportmonks' admin API
/// (`POST {base}/admin/matches/{matchId}/{action}`, `GET {base}/admin/matches`) with its
/// `X-Admin-Token`, and answers with the upstream status and JSON body.
struct ReplayProxy: Sendable {
    static let actions: Set<String> = ["start", "pause", "resume", "reset", "seek"]

    let baseURL: String?
    let token: String

    /// Forwards `method path` with `body`; 503 when no upstream is configured, 502 when it cannot be reached.
    func forward(method: String, path: String, body: [UInt8]) async throws(HTTPError) -> HTTPResponse {
        guard let baseURL else {
            throw .unavailable("replay controls need FAKE_SPORTMONKS_ADMIN_URL")
        }
        let trimmed = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        guard let url = URL(string: trimmed + path) else { throw .badRequest("bad replay path") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 5)
        request.httpMethod = method
        request.setValue(token, forHTTPHeaderField: "X-Admin-Token")
        if method == "POST" {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.isEmpty ? Array("{}".utf8) : body)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.dataIgnoringCancellation(for: request)
        } catch {
            throw HTTPError(status: 502, code: "bad_gateway", message: "fake-sportmonks admin API unreachable: \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 502
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
            throw HTTPError(status: 502, code: "bad_gateway", message: "fake-sportmonks answered \(status) without JSON")
        }
        if (200..<300).contains(status) {
            return HTTPResponse(status: 200, headers: [HTTPHeader(name: "Content-Type", value: "application/json")], body: Array(data))
        }
        // Upstream refusals keep their status class but always in this api's error shape.
        let message = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["message"] as? String ?? "upstream error"
        let mapped = [400, 404, 409].contains(status) ? status : 502
        throw HTTPError(status: mapped, code: mapped == 502 ? "bad_gateway" : "replay_refused", message: "fake-sportmonks: \(message)")
    }
}
