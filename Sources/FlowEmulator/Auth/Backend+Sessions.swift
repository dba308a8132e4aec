internal import FlowDescriptor
import FlowEmulatorData
internal import Foundation

extension Backend {
    static let samlLauncherPath = "/SAMLAuthLauncher"
    static let samlFinishQuery = "finishEndpointParam=someUnusedValue"
    static let samlIdPPath = "/saml/idp/login"
    static let otpFormPath = "/mobileservices/OTPForm"

    // MARK: SAML launcher (the service provider)

    /// `GET /SAMLAuthLauncher`: with a session, on to the finish URL (or, when already there, "finished");
    /// without one, off to the emulated IdP.
    mutating func samlLauncher(_ request: RequestFacts) -> Answer {
        let finished = request.query["finishEndpointParam"] != nil
        if samlSession(request) != nil {
            if finished { return .page(200, Page.message(title: "Finished", "The SAML login is finished.")) }
            return .redirect(ownBase + Self.samlLauncherPath + "?" + Self.samlFinishQuery)
        }
        let relayState = RandomToken.make(prefix: "rs-")
        auth.samlRequests[relayState] = now.addingTimeInterval(AuthState.transactionLifetime.timeInterval)
        defer { auth.prune(now: now) }
        guard let provider = data.identityProvider else {
            return .redirect(Self.adding([("RelayState", relayState)], to: ownBase + Self.samlIdPPath))
        }
        let requestID = "_" + RandomToken.make()
        auth.samlRequestIDs[relayState] = requestID
        return .page(
            200,
            Page.autoPost(
                title: "Signing in", action: provider.ssoURL.absoluteString,
                fields: [("SAMLRequest", authnRequest(id: requestID, to: provider)), ("RelayState", relayState)]),
            headers: Self.noStore)
    }

    /// The base64 AuthnRequest (POST binding) for the external identity provider: the launcher is the assertion
    /// consumer, the service provider's entity ID the issuer (and so the assertion's audience).
    private func authnRequest(id: String, to provider: ExternalIdentityProvider) -> String {
        let xml = """
            <samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" \
            xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="\(id)" Version="2.0" \
            IssueInstant="\(now.formatted(.iso8601))" Destination="\(Page.escape(provider.ssoURL.absoluteString))" \
            AssertionConsumerServiceURL="\(Page.escape(ownBase + Self.samlLauncherPath))" \
            ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST">\
            <saml:Issuer>\(Page.escape(provider.serviceProvider))</saml:Issuer>\
            </samlp:AuthnRequest>
            """
        return Data(xml.utf8).base64EncodedString()
    }

    /// The user an external identity provider's response names, when its signature, issuer, audience, destination,
    /// times and `InResponseTo` are right and the emulator knows the user; else why not.
    private mutating func externalAssertionUser(
        _ encoded: String, relayState: String, provider: ExternalIdentityProvider
    ) -> Result<String, SAMLRefusal> {
        guard let requestID = auth.samlRequestIDs[relayState], let expires = auth.samlRequests[relayState],
            expires > now
        else {
            return .failure(SAMLRefusal("The SAML response's RelayState is not the one of a login in progress."))
        }
        let verified: VerifiedSAMLResponse
        do throws(SAMLRefusal) {
            verified = try SAMLResponseVerifier.verify(
                base64: encoded, trusting: try SAMLTrust(certificatePEM: provider.certificatePEM),
                issuer: provider.issuer, audience: provider.serviceProvider,
                destination: ownBase + Self.samlLauncherPath, inResponseTo: requestID, now: now)
        } catch {
            return .failure(error)
        }
        auth.samlRequests[relayState] = nil
        auth.samlRequestIDs[relayState] = nil
        guard let user = user(named: verified.nameID) else {
            return .failure(
                SAMLRefusal(
                    "The SAML response names user `\(verified.nameID)`, whom this emulator does not know (list "
                        + "them under `users` in the data file)."))
        }
        return .success(user.email.lowercased())
    }

    /// `POST /SAMLAuthLauncher` (the assertion consumer): a valid SAML response starts a session and redirects to
    /// the finish URL. The response is the emulated IdP's, or with `identity-provider` in the data, the external
    /// provider's, checked as a service provider checks it.
    mutating func samlAssertionConsumer(_ request: RequestFacts) -> Answer {
        let refused = { (reason: String) in Self.errorPage(403, "The SAML response is refused: \(reason)") }
        guard let encoded = request.form.nonEmpty("SAMLResponse"), let relayState = request.form["RelayState"] else {
            return refused("the form has no SAMLResponse or RelayState.")
        }
        let user: String
        if let provider = data.identityProvider {
            switch externalAssertionUser(encoded, relayState: relayState, provider: provider) {
            case .failure(let refusal): return Self.errorPage(403, refusal.reason)
            case .success(let named): user = named
            }
        } else {
            guard let id = verifiedAssertionID(encoded) else { return refused("its signature is not valid.") }
            guard let assertion = auth.assertions[id] else { return refused("it is unknown or was already used.") }
            auth.assertions[id] = nil
            guard assertion.expires > now else { return refused("it expired.") }
            guard assertion.relayState == relayState, auth.samlRequests.removeValue(forKey: relayState) != nil else {
                return refused("its RelayState is not the one of a login in progress.")
            }
            user = assertion.user
        }
        if let old = self.session(request) { auth.revoke(old, now: now) }
        let cookie = auth.issueSession(user: user, saml: true, otpPassed: false, now: now)
        return .redirect(
            ownBase + Self.samlLauncherPath + "?" + Self.samlFinishQuery,
            headers: [Cookies.set(Self.sessionCookie, cookie)])
    }

    // MARK: The emulated IdP

    /// `GET /saml/idp/login?RelayState=…`: the IdP's login form for a login the launcher started.
    mutating func samlIdPForm(_ request: RequestFacts) -> Answer {
        guard let relayState = request.query.nonEmpty("RelayState"), let expires = auth.samlRequests[relayState],
            expires > now
        else {
            return Self.errorPage(400, "No SAML login is in progress for this RelayState. Start at /SAMLAuthLauncher.")
        }
        return idpForm(relayState: relayState, error: nil)
    }

    private mutating func idpForm(relayState: String, error: String?) -> Answer {
        let id = RandomToken.make(prefix: "tx-")
        auth.forms[id] = AuthState.FormTransaction(
            kind: .samlLogin(relayState: relayState),
            expires: now.addingTimeInterval(AuthState.transactionLifetime.timeInterval))
        auth.prune(now: now)
        return .page(
            200, Page.login(title: "Identity provider", action: Self.samlIdPPath, transaction: id, error: error),
            headers: Self.noStore)
    }

    /// `POST /saml/idp/login`: right credentials answer a page that posts a signed SAML response to the launcher;
    /// wrong ones show the form again.
    mutating func samlIdPLogin(_ request: RequestFacts) -> Answer {
        guard let id = request.form.nonEmpty("transaction_id"), let transaction = auth.forms[id],
            case .samlLogin(let relayState) = transaction.kind
        else {
            return Self.errorPage(400, "The login form has expired or was already sent. Start the login again.")
        }
        auth.forms[id] = nil
        guard transaction.expires > now else {
            return Self.errorPage(400, "The login form has expired or was already sent. Start the login again.")
        }
        guard let name = request.form["username"], let password = request.form["password"],
            let user = user(named: name), let expected = user.password, Secrets.equal(expected, password)
        else {
            return idpForm(relayState: relayState, error: "The user name or password is wrong.")
        }
        let response = samlResponse(for: user, relayState: relayState)
        return .page(
            200,
            Page.autoPost(
                title: "Signing in", action: Self.samlLauncherPath,
                fields: [
                    ("SAMLResponse", response), ("RelayState", relayState),
                ]), headers: Self.noStore)
    }

    /// A base64 SAML response naming `user`, signed with the emulator's key (HMAC-SHA-256 over the XML without its
    /// signature element), and remembered so that it can be posted once.
    private mutating func samlResponse(for user: EmulatorUser, relayState: String) -> String {
        let id = "_" + RandomToken.make()
        let expires = now.addingTimeInterval(AuthState.assertionLifetime.timeInterval)
        auth.assertions[id] = AuthState.Assertion(
            user: user.email.lowercased(), relayState: relayState, expires: expires)
        auth.prune(now: now)
        let issued = now.formatted(.iso8601)
        let unsigned = """
            <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" \
            xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="\(id)" InResponseTo="\(Page.escape(relayState))" \
            Version="2.0" IssueInstant="\(issued)" Destination="\(ownBase)\(Self.samlLauncherPath)">\
            <saml:Issuer>\(ownBase)/saml/idp</saml:Issuer>\
            <samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>\
            <saml:Assertion ID="\(id)-a" Version="2.0" IssueInstant="\(issued)">\
            <saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">\
            \(Page.escape(user.email))</saml:NameID></saml:Subject>\
            <saml:Conditions NotBefore="\(issued)" NotOnOrAfter="\(expires.formatted(.iso8601))"/>\
            </saml:Assertion></samlp:Response>
            """
        let signature =
            "<ds:Signature xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\"><ds:SignatureValue>"
            + sign(unsigned) + "</ds:SignatureValue></ds:Signature>"
        let signed = unsigned.replacingOccurrences(of: "<samlp:Status>", with: signature + "<samlp:Status>")
        return Data(signed.utf8).base64EncodedString()
    }

    private func sign(_ text: String) -> String {
        auth.signer.mac(text)
    }

    /// The `ID` of a SAML response whose signature is the emulator's; `nil` when it is not.
    private func verifiedAssertionID(_ encoded: String) -> String? {
        guard let data = Data(base64Encoded: encoded), let signed = String(data: data, encoding: .utf8),
            let start = signed.range(of: "<ds:Signature "), let end = signed.range(of: "</ds:Signature>"),
            start.lowerBound < end.lowerBound,
            let valueStart = signed.range(of: "<ds:SignatureValue>", range: start.upperBound..<end.lowerBound),
            let valueEnd = signed.range(of: "</ds:SignatureValue>", range: valueStart.upperBound..<end.lowerBound)
        else { return nil }
        let signature = String(signed[valueStart.upperBound..<valueEnd.lowerBound])
        let unsigned = String(signed[..<start.lowerBound]) + String(signed[end.upperBound...])
        guard Secrets.equal(sign(unsigned), signature),
            let idStart = unsigned.range(of: " ID=\""),
            let idEnd = unsigned.range(of: "\"", range: idStart.upperBound..<unsigned.endIndex)
        else { return nil }
        return String(unsigned[idStart.upperBound..<idEnd.lowerBound])
    }

    // MARK: OTP

    /// `GET /mobileservices/OTPForm`: the passcode form for the session's user; with `finished=true`, the page that
    /// tells the client OTP is done.
    mutating func otpForm(_ request: RequestFacts) -> Answer {
        if request.query["finished"] == "true" {
            return .page(200, Page.message(title: "Finished", "The one-time passcode was accepted."))
        }
        guard let session = self.session(request), let user = session.user else {
            return Self.errorPage(
                400,
                "There is no session to verify. Request a protected resource first: its OTP "
                    + "challenge starts one.")
        }
        guard data.user(email: user)?.otpSecret != nil else {
            return Self.errorPage(403, "User \(user) has no OTP secret on the backend.")
        }
        return passcodeForm(session: session.id, error: nil)
    }

    private mutating func passcodeForm(session: String, error: String?) -> Answer {
        let id = RandomToken.make(prefix: "tx-")
        auth.forms[id] = AuthState.FormTransaction(
            kind: .otp(session: session), expires: now.addingTimeInterval(AuthState.transactionLifetime.timeInterval))
        auth.prune(now: now)
        return .page(200, Page.passcode(action: Self.otpFormPath, transaction: id, error: error), headers: Self.noStore)
    }

    /// `POST /mobileservices/OTPForm`: the right passcode marks the session and redirects to the finished URL; a
    /// wrong one shows the form again.
    mutating func otpVerify(_ request: RequestFacts) -> Answer {
        guard let id = request.form.nonEmpty("transaction_id"), let transaction = auth.forms[id],
            case .otp(let session) = transaction.kind
        else {
            return Self.errorPage(400, "The passcode form has expired or was already sent. Open it again.")
        }
        auth.forms[id] = nil
        guard transaction.expires > now, let claims = self.session(request), claims.id == session,
            let email = claims.user
        else {
            return Self.errorPage(
                400, "The passcode form came back without its session, or has expired. Open it again.")
        }
        guard let secret = data.user(email: email)?.otpSecret.flatMap(Base32.decode),
            TOTP.verify(request.form["passcode"] ?? "", secret: secret, at: now)
        else {
            return passcodeForm(session: session, error: "The passcode is wrong or has expired.")
        }
        // The cookie the client holds keeps working here; the new one says OTP was passed, for any emulator.
        auth.otpPassed[session] = claims.expiryDate
        auth.prune(now: now)
        let passed = auth.issueSession(
            user: email, saml: claims.saml == true, otpPassed: true, id: session, expires: claims.expires, now: now)
        return .redirect(
            ownBase + Self.otpFormPath + "?finished=true", headers: [Cookies.set(Self.sessionCookie, passed)])
    }

    // MARK: Logout

    /// `POST /mobileservices/sessions/logout`: ends the cookie session and revokes the bearer token sent with it
    /// (and the rest of its login).
    mutating func logout(_ request: RequestFacts) -> Answer {
        var headers: [(String, String)] = []
        if request.cookies[Self.sessionCookie] != nil {
            if let session = self.session(request) { auth.revoke(session, now: now) }
            headers.append(Cookies.set(Self.sessionCookie, nil))
        }
        if case .bearer(let token)? = AuthorizationHeader(request.authorization),
            let access = auth.verified(token, as: .access)
        {
            auth.revoke(access, now: now)
            if let family = access.family { auth.revokeFamily(family, now: now) }
        }
        return Answer(status: 204, headers: headers, body: "")
    }
}
