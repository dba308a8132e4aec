import FlowHTTP
import FlowVocabulary
import Foundation
import Testing

@Suite struct ClientCertificateDemandTests {
    private func answer(_ status: Int, headers: [(String, String)] = [], page: String = "") -> HTTPResponse {
        HTTPResponse(
            status: status, headers: headers, body: Array(page.utf8), url: URL(string: "https://backend.test/")!)
    }

    @Test func nginxPagesAreReadAsTheDemandTheyMake() {
        let missing = "<html><center>No required SSL certificate was sent</center><hr><center>nginx</center></html>"
        let refused = "<html><center>The SSL certificate error</center><hr><center>nginx</center></html>"
        #expect(ClientCertificateDemand(answer(400, page: missing)) == .required)
        #expect(ClientCertificateDemand(answer(400, page: refused)) == .rejected)
        #expect(ClientCertificateDemand(answer(400, page: "bad request")) == nil)
    }

    @Test func theEmulatorsMarkerAndNginxsOwnStatusesAreDemands() {
        #expect(
            ClientCertificateDemand(answer(403, headers: [("X-SMP-Authentication", "certificate-required")]))
                == .required)
        #expect(
            ClientCertificateDemand(answer(403, headers: [("x-smp-authentication", "certificate-rejected")]))
                == .rejected)
        #expect(ClientCertificateDemand(answer(496)) == .required)
        #expect(ClientCertificateDemand(answer(495)) == .rejected)
    }

    @Test func otherAnswersMakeNoDemand() {
        #expect(ClientCertificateDemand(answer(403)) == nil)
        #expect(ClientCertificateDemand(answer(200, page: "No required SSL certificate was sent")) == nil)
        #expect(ClientCertificateDemand(answer(403, headers: [("x-smp-authentication", "otp-challenge")])) == nil)
    }

    @Test func theFailureNamesTheEndpointAndItsCode() {
        let failure = ClientCertificateDemand.required.failure(endpoint: "GET https://backend.test/app")
        #expect(failure.code == .certificateRequired)
        #expect(failure.message.hasPrefix("GET https://backend.test/app: "))
        #expect(ClientCertificateDemand.rejected.failure(endpoint: "x").code == .certificateRejected)
    }
}
