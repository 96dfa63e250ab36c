"""Sign-in for the Gradio front end: every request must come from a signed-in user.

- Scripts and ``gradio_client`` send a per-user API token: ``Authorization: Bearer rgi_...`` (created with
  ``python -m regintel users token LOGIN``, stored hashed, revocable).
- Browsers sign in once on ``/signin`` with a local account (lockout and audit as in Streamlit) and get a signed,
  HTTP-only session cookie (12 hours; the account is checked again on every request, so disabling it ends the
  session).

Gradio's ``auth_dependency`` calls :meth:`GradioAuth.user` on every request; None means 401 and the call never
reaches the engine, so a refused call creates no rows.
"""

from __future__ import annotations

import html
import secrets
from typing import Any

from fastapi import Request  # module level: FastAPI resolves the string annotations (PEP 563) in these globals
from itsdangerous import BadSignature, URLSafeTimedSerializer

from regintel.errors import AuthError, RegIntelError
from regintel.identity.roles import Identity

COOKIE = "regintel_gradio_session"
SESSION_SECONDS = 12 * 3600
PUBLIC_PATHS = ("/signin", "/signout")


class GradioAuth:
    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self._signer = URLSafeTimedSerializer(secrets.token_hex(32), salt="regintel-gradio")  # per process

    def identity(self, request: Any) -> Identity | None:
        """The identity behind a request's bearer token or session cookie, or None."""
        header = request.headers.get("authorization", "")
        try:
            if header:
                return self.runtime.api_tokens.identity(header)
            cookie = request.cookies.get(COOKIE, "")
            if cookie:
                user_id = self._signer.loads(cookie, max_age=SESSION_SECONDS)
                return self.runtime.accounts.identity(str(user_id), "local")
        except (AuthError, BadSignature):
            return None
        return None

    def user(self, request: Any) -> str | None:
        """Gradio's auth dependency: the signed-in user's id (the ``request.username`` of a call), or None."""
        identity = self.identity(request)
        return identity.user_id if identity is not None and identity.can("chat") else None

    def session_cookie(self, identity: Identity) -> str:
        return self._signer.dumps(identity.user_id)

    def install(self, api: Any) -> None:
        """Add /signin, /signout and the redirect of signed-out browsers to a FastAPI app (before Gradio mounts)."""
        from fastapi import Form
        from fastapi.responses import HTMLResponse, RedirectResponse

        @api.middleware("http")
        async def signed_out_browsers_go_to_signin(request: Request, call_next):
            wants_page = request.method == "GET" and "text/html" in request.headers.get("accept", "")
            if wants_page and not request.url.path.startswith(PUBLIC_PATHS) and self.identity(request) is None:
                return RedirectResponse("/signin", status_code=303)
            return await call_next(request)

        @api.get("/signin", response_class=HTMLResponse)
        def signin_form() -> str:
            return signin_page("")

        @api.post("/signin")
        def signin(request: Request, login: str = Form(""), password: str = Form("")):
            try:
                client = request.client.host if request.client else None
                identity = self.runtime.accounts.authenticate(login, password, client=client)
            except RegIntelError as exc:
                return HTMLResponse(signin_page(str(exc)), status_code=401)
            response = RedirectResponse("/", status_code=303)
            response.set_cookie(COOKIE, self.session_cookie(identity), max_age=SESSION_SECONDS, httponly=True,
                                samesite="lax")
            return response

        @api.get("/signout")
        def signout():
            response = RedirectResponse("/signin", status_code=303)
            response.delete_cookie(COOKIE)
            return response


def signin_page(error: str) -> str:
    """The sign-in form (plain HTML, no script; the error text is escaped)."""
    problem = f'<p role="alert" style="color:#b00020">{html.escape(error)}</p>' if error else ""
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Sign in · RegIntel Copilot</title></head>"
            "<body style='font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto'>"
            "<h1>Sign in to RegIntel Copilot</h1>" + problem +
            "<form method='post' action='/signin'>"
            "<p><label>Login<br><input name='login' autocomplete='username' required maxlength='120'></label></p>"
            "<p><label>Password<br><input name='password' type='password' autocomplete='current-password' required"
            " maxlength='200'></label></p><p><button type='submit'>Sign in</button></p></form>"
            "<p>Scripts use an API token instead: <code>python -m regintel users token LOGIN</code>, sent as "
            "<code>Authorization: Bearer …</code>.</p></body></html>")
