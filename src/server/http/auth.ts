import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './envelope.js';

/**
 * Checks `Authorization: Bearer <token>`. Both sides are hashed first so timingSafeEqual gets
 * equal-length inputs and the comparison time says nothing about the token's length or prefix.
 */
export function checkBearer(header: string | undefined, token: string): void {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) {
    throw new ApiError(401, 'Missing API token: send the header "Authorization: Bearer <API_TOKEN>".');
  }
  if (!timingSafeEqual(digest(match[1]), digest(token))) {
    throw new ApiError(401, 'Invalid API token: check the token in the API settings of the dashboard.');
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
