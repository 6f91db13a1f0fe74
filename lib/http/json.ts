/** Every JSON answer carries this exact type (DECISIONS.md "Wire format"). */
export const JSON_TYPE = "application/json; charset=utf-8";

export const NOT_FOUND_BODY = '{"message":""}';
