/** Every JSON answer carries this exact type (DECISIONS.md "Wire format"). */
export const JSON_TYPE = "application/json; charset=utf-8";

/** The body of a 404 and a 410. */
export const EMPTY_MESSAGE = '{"message":""}';

/** The body of a 503: a passing failure, try again after Retry-After. */
export const UNAVAILABLE = '{"message":"Service Unavailable."}';
