import Foundation
import Synchronization
import Testing
@testable import Runtime
import Runtime

@Suite struct LoggerTests {
    final class Lines: Sendable {
        let all = LockedValue<[String]>([])
        var sink: LogSink { LogSink { line in self.all.withLock { $0.append(line) } } }
    }

    @Test func writesOneJSONObjectPerLineWithMetadata() throws {
        let lines = Lines()
        let logger = Logger(label: "poller", minimumLevel: .info, sink: lines.sink)
        logger.info("polled \"livescores\"\n", ["fixture": "71344", "msg": "ignored reserved key"])
        logger.debug("dropped below level")
        let captured = lines.all.withLock { $0 }
        #expect(captured.count == 1)
        let object = try #require(JSONSerialization.jsonObject(with: Data(captured[0].utf8)) as? [String: String])
        #expect(object["level"] == "info")
        #expect(object["logger"] == "poller")
        #expect(object["msg"] == "polled \"livescores\"\n")
        #expect(object["fixture"] == "71344")
        #expect(object["ts"]?.hasSuffix("Z") == true)
    }

    @Test func controlCharactersAreEscaped() throws {
        #expect(JSONText.quoted("a\u{01}b") == "\"a\\u0001b\"")
    }
}
