import { SetMetadata } from '@nestjs/common';

export const NO_ADDRESS_LIMIT = 'aas:no-address-limit';

/**
 * A public route that the per-address allowance leaves alone: the kubelet's probes, which must
 * never be refused because other traffic shares the node's address, and which cost no more than
 * an unknown route. Also the inbound webhook endpoints, which charge the address themselves, only for
 * the calls that fail verification (InboundHooksController).
 */
export const NoAddressLimit = () => SetMetadata(NO_ADDRESS_LIMIT, true);
