import ClientCore
import Testing

@Suite struct AppVersionTests {
    @Test func comparesNumericallyComponentByComponent() throws {
        #expect(try AppVersion("1.10.0") > AppVersion("1.9.9"))
        #expect(try AppVersion("2.0") > AppVersion("1.99.99"))
        #expect(try AppVersion("1.2") == AppVersion("1.2.0"))
        #expect(try AppVersion("1.2.0") < AppVersion("1.2.1"))
        #expect(try AppVersion("v1.4.0-beta+7").components == [1, 4, 0])
        #expect(try AppVersion(" 3.1 ").components == [3, 1])
    }

    @Test(arguments: ["", "abc", "1..2", "1.2.x", "1.2.3.4.5", "-1.0"])
    func rejectsNonVersions(_ text: String) {
        #expect(throws: AppVersionError(text: text)) { try AppVersion(text) }
    }
}
